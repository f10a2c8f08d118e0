"""The one measure registry: every measure reachable by each of its names, the documentation's
catalogue equal to the registry, and the measure added through it alone (coverage and
novelty, checked against a slow implementation written here from their definitions)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.ranking import Qrels, catalogue, evaluate_run, ir_names, registry, trec_cli

DOCS = Path(__file__).resolve().parent.parent / "docs"

QRELS = {"q1": {"a": 2, "b": 1, "c": 0, "d": 1, "e": -1},
         "q2": {"x": 1, "y": 0, "z": 3},
         "q3": {"m": 0}}
RUN = {"q1": {"a": 0.5, "c": 3.0, "b": 2.0, "f": 1.0, "e": 0.25},
       "q2": {"z": 4.0, "w": 3.5, "y": 2.0},
       "q3": {"m": 1.0}}
KNOWN = {"q1": {"a": 1, "d": 1, "c": 1}, "q2": {"z": 1}}


def _extra(measure: registry.Measure) -> dict[str, object]:
    return {"known": KNOWN} if "known" in measure.inputs else {}


def _columns_of(name: str, columns: tuple[str, ...]) -> list[str]:
    return [c for c in columns if c == name or c.startswith(name + "_")]


@pytest.mark.parametrize("measure", registry.trec_measures(), ids=lambda m: m.name)
def test_every_measure_answers_to_its_trec_name(measure: registry.Measure) -> None:
    ev = evaluate_run(QRELS, RUN, measure.name, **_extra(measure))  # type: ignore[arg-type]
    assert _columns_of(measure.name, ev.columns)
    assert [r.measure for r in catalogue.parse_spec(measure.name)] == [measure]


@pytest.mark.parametrize("measure", registry.trec_measures(), ids=lambda m: m.name)
def test_every_measure_answers_to_its_name_on_the_command_line(
        measure: registry.Measure, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run, known = tmp_path / "qrels", tmp_path / "run", tmp_path / "known"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in QRELS.items()
                             for d, r in docs.items()))
    run.write_text("".join(f"{q} Q0 {d} 0 {s} tag\n" for q, docs in RUN.items()
                           for d, s in docs.items()))
    known.write_text("".join(f"{q} 0 {d} 1\n" for q, docs in KNOWN.items() for d in docs))
    args = ["-q", "-m", measure.name, str(qrels), str(run)]
    if measure.inputs:
        args[:0] = ["--known", str(known)]
    assert trec_cli.main(args) == 0
    names = {line.split()[0] for line in capsys.readouterr().out.splitlines()}
    assert names
    assert all(n == measure.name or n.startswith(measure.name + "_") for n in names)


def _ir_spellings() -> list[tuple[str, str]]:
    spellings = []
    for measure in registry.MEASURES:
        for ir in measure.ir:
            for name in (ir.name, *ir.aliases):
                if ir.cutoff in ("required", "optional:msmarco", "optional:own"):
                    name += "@3"
                elif ir.cutoff == "recall":
                    name += "@0.5"
                spellings.append((measure.name, name))
    return spellings


@pytest.mark.parametrize(("measure", "spelling"), _ir_spellings(),
                         ids=[s for _, s in _ir_spellings()])
def test_every_measure_answers_to_its_ir_measures_names(measure: str, spelling: str) -> None:
    assert ir_names.is_ir_name(spelling) or spelling in ir_names.SHARED_NAMES
    if spelling in ir_names.SHARED_NAMES:  # bare, they are trec_eval's: ask ir_measures'
        spelling += "()"
    ev = evaluate_run(QRELS, RUN, spelling, complete=True)
    assert ev.columns == ("".join(spelling.split()),)
    parsed = ir_names.parse_ir_name(spelling)
    if registry.by_name(measure).is_trec if measure in {m.name for m in
                                                        registry.trec_measures()} else False:
        assert parsed.trec.partition(".")[0] in {measure, *(
            ir.cutoff.partition(":")[2] for ir in registry.by_name(measure).ir)} | {
            "num_rel_ret", "set_relative_P"}
    else:
        assert parsed.own == measure


def _one_ranking(rng: random.Random) -> tuple[dict[str, int], dict[str, float]]:
    docs = [f"d{i}" for i in range(rng.randint(1, 30))]
    judged = {d: rng.choice((0, 1)) for d in docs if rng.random() < 0.8}
    if not any(judged.values()):
        judged[docs[0]] = 1
    scores = rng.sample(range(1, 1000), len(docs))  # distinct: no tie rule involved
    return judged, {d: float(s) for d, s in zip(docs, scores, strict=True)}


@pytest.mark.parametrize("seed", range(20))
def test_python_names_give_the_same_number_for_one_ranking(seed: int) -> None:
    rng = random.Random(seed)
    judged, scores = _one_ranking(rng)
    judged.update({f"missed{i}": 1 for i in range(rng.randint(0, 3))})  # never retrieved
    ev = ScoredPrecisionRecallEvaluation()
    for doc, score in scores.items():
        ev.add_case(judged.get(doc, 0) >= 1, score)
    ev.add_misses(sum(1 for d, r in judged.items() if r >= 1 and d not in scores))
    many = evaluate_run({"q": judged}, {"q": scores}, ["map", "Rprec", "recip_rank", "P.5"],
                        score_precision="double")
    readers = {"average_precision": ev.average_precision, "r_precision": ev.r_precision,
               "reciprocal_rank": ev.reciprocal_rank, "precision_at": lambda: ev.precision_at(5)}
    columns = {"map": "map", "Rprec": "Rprec", "recip_rank": "recip_rank", "P": "P_5"}
    checked = 0
    for measure in registry.trec_measures():
        for python in measure.python:
            assert hasattr(ScoredPrecisionRecallEvaluation, python)
            assert readers[python]() == pytest.approx(many[columns[measure.name]], abs=1e-12)
            checked += 1
    assert checked == 4


def test_the_docs_catalogue_lists_exactly_the_registry() -> None:
    text = (DOCS / "measures.md").read_text(encoding="utf-8")
    assert text == registry.catalogue_markdown(), (
        "docs/measures.md is stale: python -m rankeval.ranking.registry > docs/measures.md")
    headings = [line.split("`")[1] for line in text.splitlines() if line.startswith("## ")]
    assert headings == [m.name for m in registry.MEASURES]


def test_the_old_tables_are_views_of_the_registry() -> None:
    assert registry.trec_measures() == catalogue.MEASURES
    assert set(ir_names._TABLE) == {ir.name for m in registry.MEASURES for ir in m.ir}
    assert tuple(sorted(ir_names._TABLE)) == ir_names.SUPPORTED
    from rankeval.ranking import measures

    assert measures.AVERAGE_TIES_MEASURES == registry.AVERAGE_TIES_MEASURES
    assert not hasattr(measures, "_FUNCTIONS")
    names = [m.name for m in registry.MEASURES]
    assert len(names) == len(set(names))
    spellings = [s for m in registry.MEASURES for ir in m.ir for s in (ir.name, *ir.aliases)]
    assert len(spellings) == len(set(spellings))


def test_the_command_line_lists_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    assert trec_cli.main(["--list-measures"]) == 0
    listed = [line.split()[0].partition(".")[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == [m.name for m in registry.trec_measures()]


# ---------------------------------------------------------------------------------------------
# coverage and novelty: the measure the registry had to take in one object


def _slow_user_measures(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]],
                        known: dict[str, set[str]], level: int, max_docs: int | None
                        ) -> dict[str, tuple[float, float]]:
    """From the definitions (Baeza-Yates & Ribeiro-Neto): U = the relevant documents the
    user knew; coverage = |relevant retrieved in U| / |U|, novelty = |relevant retrieved not
    in U| / |relevant retrieved|, 0 for an empty denominator. trec_eval's ranking: score
    descending, then document id descending; the top max_docs."""
    out = {}
    for qid in sorted(set(qrels) & set(run)):
        by_id = sorted(run[qid], reverse=True)  # then a stable sort by score
        ranked = sorted(by_id, key=lambda d: -run[qid][d])
        if max_docs is not None:
            ranked = ranked[:max_docs]
        relevant = {d for d, r in qrels[qid].items() if r >= level}
        users = relevant & known.get(qid, set())
        found = relevant & set(ranked)
        coverage = len(found & users) / len(users) if users else 0.0
        novelty = len(found - users) / len(found) if found else 0.0
        out[qid] = (coverage, novelty)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_coverage_and_novelty_match_their_definition(seed: int) -> None:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    known: dict[str, set[str]] = {}
    for q in range(rng.randint(1, 6)):
        qid = f"q{q}"
        pool = [f"doc{i}" for i in range(rng.randint(1, 25))]
        qrels[qid] = {d: rng.choice((-1, 0, 1, 2, 3)) for d in pool if rng.random() < 0.7}
        if not qrels[qid]:
            qrels[qid] = {pool[0]: 1}
        run[qid] = {d: float(rng.randint(0, 8)) for d in pool if rng.random() < 0.6}
        if not run[qid]:
            run[qid] = {pool[-1]: 1.0}
        known[qid] = {d for d in pool if rng.random() < 0.4} | {f"unjudged{rng.randint(0, 3)}"}
    level = rng.choice((1, 2))
    max_docs = rng.choice((None, 1, 3, 10))
    judged_only = rng.random() < 0.3
    given: object = {q: dict.fromkeys(docs, 1) for q, docs in known.items()}
    if seed % 3 == 1:
        given = Qrels.from_relevant({q: sorted(docs) for q, docs in known.items()})
    ev = evaluate_run(qrels, run, ["coverage", "novelty"], relevance_level=level,
                      max_docs=max_docs, judged_only=judged_only, known=given)  # type: ignore[arg-type]
    slow = _slow_user_measures(qrels, run, known, level, max_docs)
    assert ev.queries == tuple(slow)
    assert ev.per_query("coverage") == pytest.approx({q: c for q, (c, _) in slow.items()})
    assert ev.per_query("novelty") == pytest.approx({q: n for q, (_, n) in slow.items()})


def test_the_known_set_as_a_file_and_a_table(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    path = tmp_path / "known"
    path.write_text("".join(f"{q} 0 {d} 1\n" for q, docs in KNOWN.items() for d in docs))
    frame = pd.DataFrame([{"query_id": q, "doc_id": d, "relevance": 1}
                          for q, docs in KNOWN.items() for d in docs])
    expected = evaluate_run(QRELS, RUN, ["coverage", "novelty"], known=KNOWN)
    for given in (str(path), frame):
        got = evaluate_run(QRELS, RUN, ["coverage", "novelty"], known=given)
        assert got.aggregates == expected.aggregates
    # q1: U = {a, d} (c is not relevant); a retrieved -> 1/2. q2: U = {z}, retrieved -> 1.
    assert expected.per_query("coverage") == {"q1": 0.5, "q2": 1.0, "q3": 0.0}
    # q1 relevant retrieved {a, b}, b unknown -> 1/2; q2 {z} known -> 0; q3 none -> 0.
    assert expected.per_query("novelty") == {"q1": 0.5, "q2": 0.0, "q3": 0.0}


def test_coverage_without_the_known_set_is_refused() -> None:
    with pytest.raises(ValueError, match="coverage needs the known set: pass known="):
        evaluate_run(QRELS, RUN, "coverage")
    with pytest.raises(ValueError, match="relevance_level of 1 or more"):
        evaluate_run(QRELS, RUN, "novelty", known=KNOWN, relevance_level=0)
    assert trec_cli.main(["-m", "novelty", "qrels", "run"]) == 2


def test_the_known_set_leaves_the_other_measures_alone() -> None:
    plain = evaluate_run(QRELS, RUN, "all_trec")
    with_known = evaluate_run(QRELS, RUN, ["all_trec", "coverage"], known=KNOWN)
    for column in plain.columns:
        if column in plain.values:
            np.testing.assert_array_equal(plain.values[column], with_known.values[column])
