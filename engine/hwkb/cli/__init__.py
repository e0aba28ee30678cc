"""The ``hwkb`` command line: flags in, one :class:`hwkb.KnowledgeBase` method, the result rendered.

Every command parses its flags, calls one method of the door and renders the result it returns through the
render stage (:mod:`hwkb.render`); ``cli/`` imports nothing else of the package but its errors and vocabulary
(tests/test_structure.py holds it to that, and names what is left).

* :mod:`~hwkb.cli.main` builds the parser from the command modules and turns errors into exit codes;
* :mod:`~hwkb.cli.flags` holds what every command shares: the common, context and output flags (one grammar:
  ``--format``, ``--json``, ``--output``, ``--force``), loading the KB, the ``error:`` lines;
* one module per command, named for it: :mod:`~hwkb.cli.solve` (with ``--symbolic`` and ``--sweep``),
  :mod:`~hwkb.cli.explain`, :mod:`~hwkb.cli.derive`, :mod:`~hwkb.cli.check`, :mod:`~hwkb.cli.listing`
  (``list``), :mod:`~hwkb.cli.run`, :mod:`~hwkb.cli.audit` (:mod:`~hwkb.cli.peer_audit` its ``--from``),
  :mod:`~hwkb.cli.whatif`, :mod:`~hwkb.cli.simulate`, :mod:`~hwkb.cli.compare`, :mod:`~hwkb.cli.sheet`,
  :mod:`~hwkb.cli.roofline`, :mod:`~hwkb.cli.export`, :mod:`~hwkb.cli.completion`;
* a database's audit streams: the render stage writes each entity's JSON from templates
  (:mod:`hwkb.render.audit_json`) and :mod:`~hwkb.cli.spool` sets it aside until the order is known.
"""
