"""Stage 3, solving: from a model and a context to values with provenance.

* :mod:`~hwkb.solving.relations`: rule instances, dimension-checked (:mod:`~hwkb.solving.dimensions`), solved
  per direction by SymPy once, kept as expression trees and compiled by hwkb;
* :mod:`~hwkb.solving.system`: the model, units and relations every question is asked of, and contexts
  (:mod:`~hwkb.solving.context`) built on them;
* :mod:`~hwkb.solving.plan`: how a target follows, on structure alone (no SymPy; NetworkX only for joint blocks);
  :mod:`~hwkb.solving.need_search`: the smallest sets of further facts that would settle an undetermined one;
  :mod:`~hwkb.solving.blocks`: simultaneous relations, exactly or by Newton's method;
* :mod:`~hwkb.solving.solver`: a plan evaluated into :mod:`~hwkb.solving.values`, answered as a
  :mod:`~hwkb.solving.solution`, a value outside its variable's range marked by :mod:`~hwkb.solving.plausibility`;
  :mod:`~hwkb.solving.points` re-evaluates it at trial values;
* simulated rules run on :mod:`hwkb.simulation`, the warp-scheduler model, a stage below this one;
"""
