"""hwkb's disk caches, gathered: none of them can change an answer.

* :mod:`~hwkb.formats.caches.directory`: where the caches live, whether that directory may be trusted (the
  user's own, written by no one else), and the per-user secret every entry is signed with;
* :mod:`~hwkb.formats.caches.entries`: one signed entry a file, written atomically;
* :mod:`~hwkb.formats.caches.solutions`: solved relation directions;
* :mod:`~hwkb.formats.caches.results`: results that need SymPy to compute but not to use (the audit's analysis,
  a block's roots), keyed by their inputs;
* :mod:`~hwkb.formats.caches.entities`: a KB file's entities as built;
* :mod:`~hwkb.formats.caches.entity_index`: which entity is in which file.

The composed YAML trees are kept by :mod:`hwkb.formats.yaml_nodes` through the same entries.
Caches are a parameter, not global state: ``KnowledgeBase.load(cache=DIR)`` keeps them under ``DIR``;
without a directory nothing touches the disk.
"""
from hwkb.formats.caches.directory import CacheDirectory, CacheRefused, cache_directory, trusted
from hwkb.formats.caches.solutions import UNSOLVABLE, SolutionCache

__all__ = ["CacheDirectory", "CacheRefused", "SolutionCache", "UNSOLVABLE", "cache_directory", "trusted"]
