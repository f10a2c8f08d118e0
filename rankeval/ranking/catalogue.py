"""trec_eval's measure catalogue: names, parameters, profiles, nicknames and output format.

Every measure trec_eval computes from a run and a qrels file is listed here, in trec_eval's
output order, with its default parameters and how its value is averaged and printed. The
numbers themselves come from :mod:`rankeval.ranking.measures`; this module only knows *what* to
compute and *how to print it*.

Three profiles, each named after the trec_eval release it reproduces:

``"9.0.8-2020"`` (default)
    The git tag ``v9.0.8`` (2020; its ``trec_eval -v`` prints 9.0.7), what pytrec_eval-terrier
    bundles and so what ir_measures computes: scores compared as C ``float``,
    ``iprec_at_recall`` cutoffs ``(long)(p*R + 0.9)``; ``-m all_trec`` has 34 measures.
``"9.0.8"``
    The release ``trec_eval-9.0.8`` (2023, prints 9.0.8): the same, with scores compared as
    ``double``.
``"10.0"``
    The tag ``v10.0`` (prints 10.0-rc3): ``double`` scores, ``lround(p*R)`` cutoffs, ``rbp``,
    ``rbp_resid`` and ``unj`` in ``all_trec``, and queries without results listed under ``-c``.

The earlier names ``"trec_eval9"`` and ``"trec_eval10"`` are accepted for ``"9.0.8-2020"`` and
``"10.0"``. The default is the 2020 tag because it is what the Python tools (pytrec_eval,
ir_measures) embed; the two 9.0.8 builds differ only where two scores of one query are
different doubles that round to the same float.

Measure specifications follow trec_eval's ``-m`` syntax: ``"map"``, ``"P.5,10"``,
``"ndcg.1=3.5,2=9"``, or a nickname (``"official"``, ``"all_trec"``, ``"set"``). For
convenience the printed name of one value is accepted too (``"P_10"``, ``"ndcg_cut_5"``,
``"iprec_at_recall_0.10"``).

Examples
--------
>>> [c.name for c in resolve(["P.5,10", "map"], "9.0.8").columns]
['map', 'P_5', 'P_10']
>>> format_line("map", "all", 0.25)
'map                   \\tall\\t0.2500\\n'
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from rankeval import formulas
from rankeval.ranking import registry

__all__ = [
    "DEFAULT_PROFILE",
    "MEASURES",
    "NICKNAMES",
    "PROFILES",
    "Column",
    "MeasureDef",
    "MeasureRequest",
    "Profile",
    "Resolved",
    "check_profile",
    "format_line",
    "format_value",
    "measure_names",
    "parse_spec",
    "resolve",
]

#: Which trec_eval release to reproduce (see the module doc), or an earlier name of one.
Profile = Literal["9.0.8-2020", "9.0.8", "10.0", "trec_eval9", "trec_eval10"]
#: The profiles, by the release each reproduces.
PROFILES: tuple[Profile, ...] = ("9.0.8-2020", "9.0.8", "10.0")
DEFAULT_PROFILE: Profile = "9.0.8-2020"
_ALIASES: dict[str, Profile] = {"trec_eval9": "9.0.8-2020", "trec_eval10": "10.0"}

# The measures themselves are declared once, in rankeval.ranking.registry.
ParamKind: TypeAlias = registry.ParamKind
Printed: TypeAlias = registry.Printed
Aggregate: TypeAlias = registry.Aggregate
#: One measure (the registry's object; its earlier name here).
MeasureDef = registry.Measure
#: Every measure with a trec_eval-style name, in trec_eval's output order.
MEASURES: tuple[registry.Measure, ...] = registry.trec_measures()

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
             "bpref", "recip_rank", "iprec_at_recall", "P")
_SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F")
_ALL_TREC_9 = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
    "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
    "set_map", "set_F", "num_nonrel_judged_ret",
)
_ALL_TREC_10 = (*_ALL_TREC_9, "rbp", "rbp_resid", "unj")

#: Nicknames per profile.
NICKNAMES: dict[Profile, dict[str, tuple[str, ...]]] = {
    "9.0.8-2020": {"official": _OFFICIAL, "set": _SET, "all_trec": _ALL_TREC_9},
    "9.0.8": {"official": _OFFICIAL, "set": _SET, "all_trec": _ALL_TREC_9},
    "10.0": {"official": _OFFICIAL, "set": _SET, "all_trec": _ALL_TREC_10},
}


@dataclass(frozen=True)
class MeasureRequest:
    """A measure with its parameters, as parsed from ``name[.params]``.

    ``params`` holds the parsed numbers (cutoffs, levels or values) and ``pairs`` the
    ``name=value`` pairs; ``text`` is the parameter string as written (it names the value of
    ``values``/``pairs`` measures) or ``None`` for the defaults.
    """

    measure: registry.Measure
    params: tuple[float, ...]
    pairs: tuple[tuple[str, float], ...] = ()
    text: str | None = None


@dataclass(frozen=True)
class Column:
    """One printed value: its name, its measure, and its position within the measure.

    ``ir_measures``: the value is an ir_measures name's, whose mean adds the queries in the
    run's order and divides by every qrels query (see ``evaluate._as_ir_measures``).
    """

    name: str
    request: MeasureRequest
    index: int
    ir_measures: bool = False

    @property
    def measure(self) -> registry.Measure:
        """The catalogue entry.

        >>> resolve(["P.5"]).columns[0].measure.name
        'P'

        Complexity: O(1).
        """
        return self.request.measure


@dataclass(frozen=True)
class Resolved:
    """Measures to compute, in output order, and the value columns they produce."""

    requests: tuple[MeasureRequest, ...]
    columns: tuple[Column, ...] = field(default=())


def measure_names(profile: Profile = DEFAULT_PROFILE) -> tuple[str, ...]:
    """Names valid in ``profile``: measures and nicknames.

    >>> "all_trec" in measure_names()
    True

    Complexity: O(number of measures).
    """
    return (*(m.name for m in MEASURES), *NICKNAMES[check_profile(profile)])


def parse_spec(spec: str, profile: Profile = DEFAULT_PROFILE) -> list[MeasureRequest]:
    """Parse one ``-m`` argument into measure requests (several for a nickname).

    Raises
    ------
    ValueError
        Unknown measure, malformed or out-of-range parameters, duplicate cutoffs.

    >>> [r.params for r in parse_spec("P.10,5")]
    [(5, 10)]
    >>> parse_spec("ndcg.1=3.5,2=9")[0].pairs
    (('1', 3.5), ('2', 9.0))

    Complexity: O(length of spec).
    """
    profile = check_profile(profile)
    if not isinstance(spec, str):
        raise TypeError(f"a measure must be given as a string, got {type(spec).__name__}")
    name, dot, text = spec.partition(".")
    if dot and not text:
        raise ValueError(f"improper measure {spec!r}: nothing after '.'")
    if name in NICKNAMES[profile]:
        if dot:
            raise ValueError(f"nickname {name!r} takes no parameters, got {spec!r}")
        members = map(registry.by_name, NICKNAMES[profile][name])
        return [MeasureRequest(member, member.default) for member in members]
    measure = registry.find(name)
    if measure is None:
        value_name = _from_value_name(spec)
        if value_name is not None:
            return [value_name]
        from rankeval.ranking.ir_names import unknown_message

        raise ValueError(unknown_message(name))
    if not dot:
        return [MeasureRequest(measure, measure.default)]
    return [_with_params(measure, text)]


def _from_value_name(spec: str) -> MeasureRequest | None:
    """``P_10`` -> P with cutoff 10; ``iprec_at_recall_0.10`` -> that level."""
    stem, _, suffix = spec.rpartition("_")
    measure = registry.find(stem)
    if measure is None or not suffix:
        return None
    if measure.params == "cutoffs" and suffix.isascii() and suffix.isdigit():
        return MeasureRequest(measure, (_cutoff(suffix, spec),), text=suffix)
    if measure.params == "levels":
        try:
            level = float(suffix)
        except ValueError:
            return None
        return MeasureRequest(measure, (level,), text=suffix)
    return None


def _with_params(measure: registry.Measure, text: str) -> MeasureRequest:
    parts = text.split(",")
    where = f"{measure.name}.{text}"
    if measure.params == "none":
        raise ValueError(f"measure {measure.name!r} takes no parameters, got {where!r}")
    if measure.params == "pairs":
        pairs = []
        for part in parts:
            key, eq, value = part.partition("=")
            if not eq or not key:
                raise ValueError(f"malformed name=value parameters in {where!r}")
            pairs.append((key, _number(value, where)))
        return MeasureRequest(measure, (), tuple(pairs), text)
    if measure.params == "cutoffs":
        numbers: list[float] = list(_c_sorted([_cutoff(part, where) for part in parts]))
    elif measure.params == "levels":
        numbers = sorted(_number(part, where) for part in parts)
    else:  # values: kept in the order given
        numbers = [_number(part, where) for part in parts]
        _check_values(measure, numbers, where)
        return MeasureRequest(measure, tuple(numbers), (), text)
    if len(set(numbers)) < len(numbers):
        raise ValueError(f"duplicate cutoffs in {where!r}")
    return MeasureRequest(measure, tuple(numbers), (), text)


def _check_values(measure: registry.Measure, numbers: Sequence[float], where: str) -> None:
    if measure.name == "set_F":
        from rankeval.checks import check_beta

        # the one rule for every F in the package (0 would make set_F plain precision)
        check_beta(numbers[0], where)
    if measure.name == "utility" and len(numbers) != 4:
        raise ValueError(f"utility takes 4 coefficients, got {where!r}")
    if measure.name == "11pt_avg" and any(b < a for a, b in itertools.pairwise(numbers)):
        raise ValueError(f"11pt_avg recall levels must be in increasing order, got {where!r}")


#: The largest cutoff: C's ``long``, which trec_eval reads cutoffs into (its ``atol``
#: saturates there).
MAX_CUTOFF = 2**63 - 1


def _cutoff(text: str, where: str) -> int:
    """A rank cutoff, written in decimal digits: exact (a Python int, never a float that
    would round 2**63 - 1 up), positive, at most :data:`MAX_CUTOFF`. ``1e3`` is refused:
    trec_eval's command line reads it as 1, so the API never guesses."""
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"cutoffs must be whole numbers written in digits, found {text!r} in "
                         f"{where!r}")
    value = int(text)
    if value <= 0:
        raise ValueError(f"cutoffs must be positive, got {where!r}")
    if value > MAX_CUTOFF:
        raise ValueError(f"cutoff {text} in {where!r} is larger than the largest, 2**63 - 1")
    return value


def _c_sorted(cutoffs: list[int]) -> list[int]:
    """Cutoffs in trec_eval's order: ascending, except where two are 2**31 or more apart,
    which its comparator ``(int)(a - b)`` (the difference cut to 32 bits) misorders; then
    glibc's merge sort with that comparator decides.

    >>> _c_sorted([7, 5, 2**63 - 1])
    [9223372036854775807, 5, 7]
    """
    if not cutoffs or max(cutoffs) - min(cutoffs) < 2**31:
        return sorted(cutoffs)

    def compare(a: int, b: int) -> int:
        low = (a - b) & 0xFFFFFFFF
        return low - 2**32 if low >= 2**31 else low

    return formulas.c_merge_sort(cutoffs, compare)


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a number in {where!r}, found {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number in {where!r}, found {text!r}")
    return value


def resolve(
    specs: Iterable[str], profile: Profile = DEFAULT_PROFILE, *, first_wins: bool = False
) -> Resolved:
    """Requests for ``specs`` in catalogue order, and their value columns.

    The same measure named twice with parameters: its cutoffs or levels are merged
    (``"P_5", "P_10"`` -> P at 5 and 10), unless ``first_wins`` (trec_eval's command line,
    where the first ``-m name.params`` of a measure is the one used). A measure named without
    parameters keeps its defaults unless parameters are given elsewhere.

    >>> [c.name for c in resolve(["P_5", "P_10", "success.1"]).columns]
    ['P_5', 'P_10', 'success_1']

    Complexity: O(total parameters · log).
    """
    chosen: dict[str, MeasureRequest] = {}
    explicit: set[str] = set()
    for spec in specs:
        for request in parse_spec(spec, profile):
            name = request.measure.name
            given = request.text is not None
            old = chosen.get(name)
            if old is None or (given and name not in explicit):
                chosen[name] = request
            elif given and not first_wins:
                chosen[name] = _merge(old, request)
            if given:
                explicit.add(name)
    requests = tuple(chosen[m.name] for m in MEASURES if m.name in chosen)
    if not is_nine(check_profile(profile)):
        requests = _shared_gains(requests)
    return Resolved(requests, tuple(_columns(requests)))


# trec_eval 10 gives dcg, ideal_dcg and ndcg one parameter record (m_ndcg.c's static
# default_ndcg_gains): see _shared_gains.
_SHARING_GAINS = ("dcg", "ideal_dcg", "ndcg")


def _shared_gains(requests: tuple[MeasureRequest, ...]) -> tuple[MeasureRequest, ...]:
    """trec_eval 10's one parameter record for dcg, ideal_dcg and ndcg.

    It sets up the measures asked for in catalogue order; one given ``v=gain`` parameters
    writes them into the shared record, so every one of the three computes with the last
    written, and each is named with what the record held when it was set up.

    >>> shared = resolve(["ideal_dcg.1=9", "ndcg", "dcg"], "10.0").requests
    >>> [(r.measure.name, r.text) for r in shared], {r.pairs for r in shared}
    ([('dcg', None), ('ideal_dcg', '1=9'), ('ndcg', '1=9')], {(('1', 9.0),)})
    """
    sharing = [r for r in requests if r.measure.name in _SHARING_GAINS]
    given = [r for r in sharing if r.text is not None]
    if not given:
        return requests
    final = given[-1].pairs
    text: str | None = None
    renamed: dict[str, MeasureRequest] = {}
    for request in sharing:
        if request.text is not None:
            text = request.text
        renamed[request.measure.name] = MeasureRequest(request.measure, (), final, text)
    return tuple(renamed.get(r.measure.name, r) for r in requests)


def _merge(old: MeasureRequest, new: MeasureRequest) -> MeasureRequest:
    kind = old.measure.params
    if kind in ("cutoffs", "levels"):
        merged = tuple(sorted(set(old.params) | set(new.params)))
        text = ",".join(_param_text(kind, v) for v in merged)
        return MeasureRequest(old.measure, merged, (), text)
    if old != new:
        raise ValueError(
            f"measure {old.measure.name!r} given with two parameter sets: "
            f"{old.text!r} and {new.text!r}"
        )
    return old


def _param_text(kind: ParamKind, value: float) -> str:
    return str(int(value)) if kind == "cutoffs" else repr(value)


def _columns(requests: Iterable[MeasureRequest]) -> Iterable[Column]:
    for request in requests:
        m = request.measure
        if m.params == "cutoffs":
            for i, k in enumerate(request.params):
                yield Column(f"{m.name}_{int(k)}", request, i)
        elif m.params == "levels":
            for i, level in enumerate(request.params):
                yield Column(f"{m.name}_{_c_fixed(level, 2)}", request, i)
        elif m.params in ("values", "pairs") and request.text is not None:
            yield Column(f"{m.name}_{request.text}", request, 0)
        else:
            yield Column(m.name, request, 0)


def _c_fixed(value: float, digits: int) -> str:
    """C's ``%.<digits>f`` (correctly rounded, like glibc)."""
    return f"{value:.{digits}f}"


def format_value(value: float | str, printed: Printed) -> str:
    """A value as trec_eval prints it.

    ``%6.4f`` for measures, ``%ld`` of the value truncated for counts, ``'text'`` for
    ``relstring`` and the bare text for ``runid``.

    >>> format_value(0.12345, "float"), format_value(584.0, "count"), format_value("01", "text")
    ('0.1235', '584', "'01'")

    Complexity: O(1).
    """
    if printed == "text":
        return f"'{value}'"
    if printed == "id":
        return str(value)
    number = float(value)
    if printed == "count":
        return str(int(number))
    if math.isnan(number):
        # trec_eval's NaNs all come from 0.0 / 0.0, which on x86-64 has the sign bit set:
        # glibc prints "-nan" whatever sign NumPy's arithmetic left on ours.
        return "  -nan"
    return f"{number:6.4f}"


def format_line(name: str, qid: str, value: float | str, printed: Printed = "float") -> str:
    """One output line, ``%-22s\\t%s\\t<value>\\n``.

    >>> format_line("num_ret", "301", 500.0, "count").split(chr(9))
    ['num_ret               ', '301', '500\\n']

    Complexity: O(1).
    """
    return f"{name:<22}\t{qid}\t{format_value(value, printed)}\n"


def check_profile(profile: object) -> Profile:
    """The profile's own name (an earlier name is translated); ``ValueError`` if unknown.

    >>> check_profile("trec_eval10"), check_profile("9.0.8")
    ('10.0', '9.0.8')
    """
    if isinstance(profile, str):
        if profile in PROFILES:
            return profile
        if profile in _ALIASES:
            return _ALIASES[profile]
    raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")


def is_nine(profile: Profile) -> bool:
    """Whether ``profile`` (a checked one) reproduces a trec_eval 9 build."""
    return profile != "10.0"
