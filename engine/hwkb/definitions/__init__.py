"""Stage 1, definitions: what the knowledge base is made of, before any file or any algebra.

* :mod:`~hwkb.definitions.model`: frozen data — index sets, variables, facts, rules, entities, the Model —
  and the names of keys (``tc_peak[bf16]``) and of the simulation models a rule may use;
* :mod:`~hwkb.definitions.expressions`: the whitelist language of rules and ``--where``, parsed with ``ast``;
  :mod:`~hwkb.definitions.compiled` turns its checked trees into Python functions;
* :mod:`~hwkb.definitions.units`: the project's Pint registry, its own grammar of unit text, and canonical-unit
  arithmetic;
* :mod:`~hwkb.definitions.quantities`: the one syntax of a quantity as text (``989.4 TFLOPS``, ``n/a``, a capacity's
  JEDEC ``80 GB``); :mod:`~hwkb.definitions.printed`: how a printed figure is read (its significant digits, rounded
  or cut short);
  :mod:`~hwkb.definitions.display`: the one rule numbers are shown by (``37.5 %``, ``3.865 Texp/s``, ``TOPS``);
* :mod:`~hwkb.definitions.limits`: every limit on input, and the one guarded read of a file.
"""
