"""Stage 4, questions: what an engineer asks of a solved context.

* :mod:`~hwkb.questions.closed_forms`: a variable as an expression of others;
* :mod:`~hwkb.questions.sweeps`: a variable over a grid, its grid in chunks (:mod:`~hwkb.questions.sweep_grid`);
* :mod:`~hwkb.questions.thresholds` (with :mod:`~hwkb.questions.searches`): the values where inequalities hold;
* :mod:`~hwkb.questions.interventions` and :mod:`~hwkb.questions.whatif`: a change, what it recomputes and holds;
* :mod:`~hwkb.questions.saved_queries`: tables defined in YAML;

A sibling of :mod:`hwkb.audit`: neither imports the other.
"""
