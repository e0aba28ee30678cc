"""Stage 4, audit: which stated figures contradict each other, and which one is likely wrong.

* :mod:`~hwkb.audit.rows`: entities' stated facts as numbers with their printed rounding;
* :mod:`~hwkb.audit.analysis`: the checks of a pattern of stated keys, on the one planner, as expressions
  compiled to :mod:`~hwkb.audit.enclosures` (outward-rounded interval arithmetic);
* :mod:`~hwkb.audit.verdicts`: the checks evaluated over arrays of entities; :mod:`~hwkb.audit.readings`: the
  reading a within-rounding verdict needed (a figure truncated, or read to two significant figures);
* :mod:`~hwkb.audit.suspects` and :mod:`~hwkb.audit.hints`: the likely culprit and the slip it looks like;
* :mod:`~hwkb.audit.plausibility`: values derived, or figures stated, outside the range real hardware spans;
* :mod:`~hwkb.audit.findings`: the result types; :mod:`~hwkb.audit.population`: systematic, isolated and
  mixed failures across a database; :mod:`~hwkb.audit.report`: the report and its three forms;
* :mod:`~hwkb.audit.auditor`: the stages in order.

A sibling of :mod:`hwkb.questions`: neither imports the other.
"""
