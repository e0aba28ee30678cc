"""The hardware files of the LLM performance tools engineers use, read as KB facts and written from KB figures.

One module per tool's layout, each with its field table (:class:`~hwkb.formats.peers.entries.PeerField`:
the KB key, the unit the tool's own code reads the figure in, and the source line that reads it), its
table of GPU names to KB entities, a reader and a writer:

* :mod:`~hwkb.formats.peers.llm_analysis`: llm-analysis's ``gpu_configs/*.json``;
* :mod:`~hwkb.formats.peers.genz`: GenZ-LLM-Analyzer's systems, its Python dict written as JSON;
* :mod:`~hwkb.formats.peers.llmcompass`: LLMCompass's ``configs/*.json``;
* :mod:`~hwkb.formats.peers.aiconfigurator`: NVIDIA AIConfigurator's ``systems/*.yaml``;
* :mod:`~hwkb.formats.peers.epoch`: Epoch AI's machine-learning hardware CSV.

:mod:`~hwkb.formats.peers.documents` reads JSON, YAML and CSV safely into values that know their
file:line; :mod:`~hwkb.formats.peers.registry` names the formats. The audit of such files is
:mod:`hwkb.audit.peers`; the export, :mod:`hwkb.questions.export`.
"""
