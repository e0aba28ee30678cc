"""The ``hwkb`` command line: a thin layer over :class:`hwkb.KnowledgeBase`.

* :mod:`~hwkb.cli.main` builds the parser from the command modules and turns errors into exit codes;
* :mod:`~hwkb.cli.flags` holds what every command shares: the common and context flags, loading the KB,
  the one JSON writer, the ``error:`` lines;
* one module per command, named for it: :mod:`~hwkb.cli.solve` (with ``--symbolic`` and ``--sweep``),
  :mod:`~hwkb.cli.explain`, :mod:`~hwkb.cli.derive`, :mod:`~hwkb.cli.check`, :mod:`~hwkb.cli.listing`
  (``list``), :mod:`~hwkb.cli.run`, :mod:`~hwkb.cli.audit`, :mod:`~hwkb.cli.whatif`, :mod:`~hwkb.cli.simulate`;
  each adds its subcommand with ``register(subparsers)``;
* :mod:`~hwkb.cli.plots` draws runs and sweeps (matplotlib, an optional extra), :mod:`~hwkb.cli.writeback`
  writes derived values as an entity file, atomically;
* a database's audit streams: :mod:`~hwkb.cli.audit_json` writes each entity's JSON from templates and
  :mod:`~hwkb.cli.spool` sets it aside until the order is known.

The text a result prints lives with the result (:mod:`hwkb.solving.text`, :mod:`hwkb.questions.text`).
"""
