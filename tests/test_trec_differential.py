"""``rankeval trec`` against the three real trec_eval binaries, built from source here.

The binaries are built from ``tests/data/trec_eval_src`` into a temporary directory (make and
a C compiler are part of the test machine; a missing one fails, it is not skipped). The
``-m`` arguments come from the catalogue itself: every measure of every profile alone, bare
and with random parameters, every nickname, then random mixes (``benchmarks/
trec_differential.py``, which runs the same comparison at any size). A hand list of
measures is how ``-m P`` once broke unseen.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import trec_builds  # noqa: E402
import trec_differential  # noqa: E402

from rankeval.ranking import catalogue  # noqa: E402


@pytest.fixture(scope="module")
def binaries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    assert trec_builds.compiler_present(), "the trec_eval builds need make and a C compiler"
    cache = tmp_path_factory.mktemp("trec_eval_builds")
    return {profile: trec_builds.build(profile, cache=cache) for profile in trec_builds.ARCHIVES}


def test_the_sweep_covers_the_whole_catalogue() -> None:
    specs = trec_differential.all_specs(random.Random(0))
    names = {spec.partition(".")[0] for spec in specs}
    assert {m.name for m in catalogue.MEASURES} <= names
    assert {n for p in catalogue.PROFILES for n in catalogue.NICKNAMES[p]} <= names
    with_params = {spec.partition(".")[0] for spec in specs if "." in spec}
    assert with_params == {m.name for m in catalogue.MEASURES if m.params != "none"}


@pytest.mark.parametrize("seed", [1, 2])
def test_same_bytes_as_trec_eval(binaries: dict[str, Path], seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    differ: list[str] = []
    identical = {profile: set() for profile in binaries}
    for case in trec_differential.cases(rng, 150):
        for profile, (outcome, theirs, ours) in trec_differential.compare(
                binaries, case, str(tmp_path)).items():
            if outcome == "differ":
                differ.append(f"{profile}: trec_eval exit {theirs[0]}, rankeval exit "
                              f"{ours[0]}\n{case.show()}--- trec_eval\n{theirs[1].decode()}"
                              f"--- rankeval\n{ours[1].decode()}")
            elif outcome == "identical":
                identical[profile].update(case.args[i + 1] for i, a in enumerate(case.args)
                                          if a == "-m")
    assert not differ, differ[0]
    # Every measure trec_eval 9 knows was answered alike at least once, bare ("-m P", the
    # commonest call) included.
    for profile in ("9.0.8-2020", "9.0.8"):
        for name in ("P", "map", "ndcg_cut", "recall", "Rprec", "infAP", "official"):
            assert name in identical[profile], (profile, name)
