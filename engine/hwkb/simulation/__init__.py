"""Stage 1.5, simulation: the warp-scheduler model, above the definitions and below everything that reads files.

* :mod:`~hwkb.simulation.scheduler`: the model (an event-driven simulator and the cycle-by-cycle reference it
  must agree with) and its grids;
* :mod:`~hwkb.simulation.rules`: a simulated rule of the KB run on its model, for the solver.
"""
