"""Measure names in ir_measures' syntax (``nDCG@10``, ``P(rel=2)@5``), mapped to trec_eval's.

ir_measures names a measure ``Name(param=value, ...)@cutoff``. Each name here is translated
to the trec_eval measure that ir_measures itself computes it with, together with the
ranking options that reproduce ir_measures' provider for it:

* through trec_eval (pytrec_eval): ``P@k``, ``R@k``, ``AP``, ``AP@k``, ``RR``, ``Rprec``,
  ``nDCG``, ``nDCG@k``, ``Bpref``, ``Success@k``, ``NumRet``, ``NumRelRet``, ``NumRel``,
  ``NumQ``, ``SetP``, ``SetRelP``, ``SetR``, ``SetF``, ``SetAP``, ``IPrec@r``, ``infAP``.
  Parameters ``rel`` (the relevance level) and ``judged_only`` where ir_measures accepts
  them; trec_eval 9's ranking (scores as C float, ties by document id descending).
* ``RR@k``: ir_measures computes it with MS MARCO's script: scores as doubles, ties by
  document id *ascending*, the top k only.
* ``Compat`` and ``Accuracy@k``: ir_measures' own providers, computed by
  :mod:`rankeval.ranking.ir_own` (no trec_eval measure; ``IrMeasure.own`` names them).
* ``Judged@k`` (and ``Judged``: every retrieved document): ir_measures' own code, the share
  of the top min(k, retrieved) documents that the qrels list; scores as doubles, ties by
  document id ascending.

rankeval's own additions, for conventions found in tutorials and papers (not ir_measures'):
``R_cap@k`` (BEIR's capped recall, relevant found / min(k, R)), ``AP(denominator=retrieved)``
(divided by the relevant documents found, or ``min_k_r``: by min(k, R)) and
``nDCG(ideal=retrieved)@k`` (the ideal ranking from the retrieved documents only, as
scikit-learn's ``ndcg_score``).

Anything else (``dcg=exp-log2``, ``gains=``, ...) is a ``ValueError`` that lists what is
supported. The parser is our own (a few lines of :mod:`ast`), so ir_measures is
not a dependency; the tests compare every supported name with ir_measures itself.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any, get_args

from rankeval.checks import check_beta
from rankeval.ranking import registry
from rankeval.ranking.measures import ApDenominator, Ideal

__all__ = [
    "PARAM_VALUES",
    "SHARED_NAMES",
    "SUPPORTED",
    "IrMeasure",
    "is_ir_name",
    "param_values",
    "parse_ir_name",
]

# name -> (trec_eval measure, how the cutoff is written, parameters accepted): a view of the
# registry (each measure declares its ir_measures spellings); "" for ir_measures' own.
_TABLE: dict[str, tuple[str, str, frozenset[str]]] = {
    ir.name: (measure.name if measure.is_trec else "", ir.cutoff, ir.params)
    for measure in registry.MEASURES for ir in measure.ir
}
_ALIASES = registry.ir_aliases()

#: Names that trec_eval spells the same way. Written bare they are trec_eval's (its rule:
#: the run's queries, unless ``complete=True``); ``RPrec``, ``Rprec()`` and ``infAP()`` are
#: ir_measures' (every qrels query).
SHARED_NAMES = frozenset({"Rprec", "infAP"})

#: Values the tests draw each parameter from (every parameter a name accepts has an entry).
PARAM_VALUES: dict[str, tuple[Any, ...]] = {
    "rel": (1, 2, 3), "judged_only": (True, False), "denominator": get_args(ApDenominator),
    "ideal": get_args(Ideal), "dcg": ("log2",), "relative": (True, False),
    "beta": (0.5, 1.0, 2.0), "p": (0.5, 0.8, 0.95), "normalize": (True, False),
}
# Parameters a name accepts at some values only (ir_measures' providers compute no other).
_ONLY: dict[tuple[str, str], tuple[Any, ...]] = {("NumRel", "rel"): (1,)}


def param_values(head: str, param: str) -> tuple[Any, ...]:
    """The values the tests draw ``param`` of ``head`` from.

    >>> param_values("NumRel", "rel"), param_values("P", "rel")
    ((1,), (1, 2, 3))
    """
    return _ONLY.get((head, param), PARAM_VALUES[param])

# No measure name is longer; a longer text is refused before it is parsed.
_LONGEST = 200

# The largest cutoff (C's long, as trec_eval reads cutoffs).
_ALL_RANKS = 2**63 - 1
# A cutoff past any ranking: "every retrieved document".
_ALL = 2**31 - 1

#: The names understood, for messages and documentation.
SUPPORTED = tuple(sorted(_TABLE))


@dataclass(frozen=True)
class IrMeasure:
    """One ir_measures name, translated.

    Attributes
    ----------
    name : str
        The name as given, without spaces (the result column is called this).
    trec : str
        The trec_eval measure specification (``"ndcg_cut.10"``).
    column : str
        The trec_eval column holding the value (``"ndcg_cut_10"``).
    options : tuple of (str, object)
        :func:`rankeval.ranking.evaluate_run` options that reproduce ir_measures' provider.
    """

    name: str
    trec: str
    column: str
    options: tuple[tuple[str, Any], ...]
    own: str = ""
    own_params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | None = None


def is_ir_name(text: str) -> bool:
    """Whether ``text`` is written in ir_measures' syntax rather than trec_eval's.

    A name trec_eval knows, written as trec_eval writes it, is trec_eval's: ir_measures'
    names never shadow one (bare ``P`` is trec_eval's P at its nine cutoffs; ``Rprec`` and
    ``infAP``, spelled alike by both, are trec_eval's; ``RPrec`` or ``infAP()`` ask for
    ir_measures' rule).

    >>> [is_ir_name(t) for t in ("nDCG@10", "P(rel=2)@5", "AP", "map", "P.10", "Rprec")]
    [True, True, True, False, False, False]
    >>> [is_ir_name(t) for t in ("P", "P@5", "RPrec", "infAP", "infAP()")]
    [False, True, True, False, True]

    Complexity: O(len(text)).
    """
    if not isinstance(text, str):
        return False
    bare = "".join(text.split())
    if "@" in bare or "(" in bare:
        return True
    if _is_trec_name(bare):
        return False
    return bare in _TABLE or bare in _ALIASES or bare in registry.RANX_NAMES


def _from_ranx(name: str) -> str:
    """A ranx name (``ndcg@10``, ``r-precision``, ``mrr``) in ir_measures' spelling; any
    other name as it is.

    >>> _from_ranx("ndcg@10"), _from_ranx("r-precision"), _from_ranx("nDCG@10")
    ('nDCG@10', 'Rprec', 'nDCG@10')
    """
    head, at, cutoff = name.partition("@")
    ir = registry.RANX_NAMES.get(head)
    return name if ir is None else f"{ir}{at}{cutoff}"


def suggestions(name: str, limit: int = 3) -> list[str]:
    """The known measure names closest to ``name`` (trec_eval's, ir_measures' and ranx's),
    for "did you mean" in error messages.

    >>> suggestions("ndgc_cut")
    ['ndcg_cut']
    """
    import difflib

    from rankeval.ranking.catalogue import PROFILES, measure_names

    head = name.partition("@")[0].partition("(")[0].partition(".")[0]
    known = sorted({*(n for profile in PROFILES for n in measure_names(profile)), *_TABLE,
                    *_ALIASES, *registry.RANX_NAMES})
    close = difflib.get_close_matches(head, known, n=limit, cutoff=0.6)
    if not close:  # a case slip: "NDCG" for "nDCG"
        lowered = {k.lower(): k for k in known}
        close = [lowered[m] for m in difflib.get_close_matches(head.lower(), list(lowered),
                                                                n=limit, cutoff=0.6)]
    return close


def unknown_message(name: str) -> str:
    """``unknown measure 'x'``, with the closest known names."""
    close = suggestions(name)
    hint = (f"; did you mean {', '.join(map(repr, close))}?" if close else
            "; no known name is close")
    return (f"unknown measure {name!r}{hint} (rankeval trec --list-measures lists every "
            "name; ir_measures' and ranx's names work too)")


def _is_trec_name(text: str) -> bool:
    """Whether ``text`` is a trec_eval measure or nickname of any profile, bare or
    ``name.params``."""
    from rankeval.ranking.catalogue import PROFILES, measure_names

    head = text.partition(".")[0]
    return any(head in measure_names(profile) for profile in PROFILES)


def parse_ir_name(text: str) -> IrMeasure:
    """Translate one ir_measures name.

    >>> parse_ir_name("nDCG@10").trec, parse_ir_name("nDCG@10").column
    ('ndcg_cut.10', 'ndcg_cut_10')
    >>> parse_ir_name("Compat(p=0.8)").own_params
    (('normalize', True), ('p', 0.8))
    >>> parse_ir_name("P(rel=2)@5").options
    (('relevance_level', 2),)
    >>> parse_ir_name("RR@10").options
    (('max_docs', 10), ('score_precision', 'double'), ('ties', 'docid_asc'))
    >>> parse_ir_name("nDCG(dcg=exp-log2)@10")
    Traceback (most recent call last):
    ...
    ValueError: nDCG(dcg=exp-log2)@10: dcg='exp-log2' is not supported (only 'log2', trec_eval's)

    Complexity: O(len(text)).
    """
    name = "".join(text.split())  # the result's column: the name as given
    head, params, cutoff = _split(_from_ranx(name))
    head = _ALIASES.get(head, head)
    if head not in _TABLE:
        raise ValueError(f"{text}: {unknown_message(head)}")
    trec, cut, accepted = _TABLE[head]
    unknown = sorted(set(params) - accepted)
    if unknown:
        allowed = ", ".join(sorted(accepted)) or "none"
        raise ValueError(f"{text}: parameter {unknown[0]!r} is not supported for {head} "
                         f"(supported: {allowed})")
    for param, value in params.items():
        only = _ONLY.get((head, param))
        if only is not None and value not in only:
            raise ValueError(f"{text}: {head} takes {param}={only[0]!r} only "
                             "(ir_measures computes no other)")
    if head in ("Compat", "Accuracy"):
        return _own(text, name, head, params, cutoff)
    options: dict[str, Any] = {}
    if "rel" in params:
        options["relevance_level"] = _integer(text, "rel", params["rel"])
        if options["relevance_level"] < 1:  # pytrec_eval refuses it; so would ir_measures
            raise ValueError(f"{text}: rel must be at least 1")
    if params.get("judged_only", False) is not False:
        if params["judged_only"] is not True:
            raise ValueError(f"{text}: judged_only must be True or False")
        options["judged_only"] = True
    if head == "R_cap":
        options["capped_recall"] = True
    if "denominator" in params:
        if params["denominator"] not in get_args(ApDenominator):
            raise ValueError(f"{text}: denominator must be relevant, retrieved or min_k_r")
        options["ap_denominator"] = params["denominator"]
    if "ideal" in params:
        if params["ideal"] not in get_args(Ideal):
            raise ValueError(f"{text}: ideal must be judged or retrieved")
        options["ideal"] = params["ideal"]
    if "dcg" in params and params["dcg"] != "log2":
        raise ValueError(f"{text}: dcg={params['dcg']!r} is not supported (only 'log2', "
                         "trec_eval's)")
    if head == "SetP" and params.get("relative", False) is True:
        trec = "set_relative_P"
    if head == "NumRet" and "rel" in params:  # ir_measures: relevant documents retrieved
        trec = "num_rel_ret"
    spec, column = trec, trec
    if head == "SetF" and "beta" in params:
        if isinstance(params["beta"], bool) or not isinstance(params["beta"], (int, float)):
            raise ValueError(f"{text}: beta must be a number, got {params['beta']!r}")
        beta = float(params["beta"])
        check_beta(beta, text)
        spec, column = f"set_F.{beta!r}", f"set_F_{beta!r}"
    if cut == "required" and cutoff is None:
        raise ValueError(f"{text}: {head} needs a cutoff, e.g. {head}@10")
    if cut == "none" and cutoff is not None:
        raise ValueError(f"{text}: {head} takes no cutoff")
    if cutoff is not None:
        if cut == "recall":
            if isinstance(cutoff, bool) or not isinstance(cutoff, (int, float)) or not (
                    math.isfinite(cutoff)):
                raise ValueError(f"{text}: the recall level must be a finite number")
            level = float(cutoff)
            spec, column = f"{trec}.{level!r}", f"{trec}_{level:.2f}"
        else:
            k = _integer(text, "cutoff", cutoff)
            if not 1 <= k <= _ALL_RANKS:
                raise ValueError(f"{text}: the cutoff must be from 1 to 2**63 - 1")
            if cut == "optional:msmarco":
                if options.get("judged_only"):
                    raise ValueError(f"{text}: RR with a cutoff does not take judged_only")
                options.update(max_docs=k, score_precision="double", ties="docid_asc")
            else:
                base = trec if cut == "required" else cut.split(":", 1)[1]
                spec, column = f"{base}.{k}", f"{base}_{k}"
    elif cut == "recall":
        raise ValueError(f"{text}: IPrec needs a recall level, e.g. IPrec@0.5")
    elif cut == "optional:judged":  # every retrieved document
        spec, column = f"{trec}.{_ALL}", f"{trec}_{_ALL}"
    if head == "Judged":
        options.update(score_precision="double", ties="docid_asc")
    return IrMeasure(name, spec, column, tuple(sorted(options.items())))


def _own(text: str, name: str, head: str, params: dict[str, Any], cutoff: Any) -> IrMeasure:
    """``Compat`` and ``Accuracy``: computed by :mod:`rankeval.ranking.ir_own`."""
    own: dict[str, Any] = {}
    if head == "Compat":
        if cutoff is not None:
            raise ValueError(f"{text}: Compat takes no cutoff")
        p = params.get("p", 0.95)
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 < p < 1.0:
            raise ValueError(f"{text}: p must be a number between 0 and 1, got {p!r}")
        normalize = params.get("normalize", True)
        if not isinstance(normalize, bool):
            raise ValueError(f"{text}: normalize must be True or False")
        own = {"p": float(p), "normalize": normalize}
    else:
        own = {"rel": _integer(text, "rel", params.get("rel", 1))}
        if cutoff is not None:
            cutoff = _integer(text, "cutoff", cutoff)
            if not 1 <= cutoff <= _ALL_RANKS:
                raise ValueError(f"{text}: the cutoff must be from 1 to 2**63 - 1")
    return IrMeasure(name, "", name, (), head, tuple(sorted(own.items())), cutoff)


def _split(name: str) -> tuple[str, dict[str, Any], Any]:
    """``Name(params)@cutoff`` -> name, params, cutoff (None if absent)."""
    if len(name) > _LONGEST:
        raise ValueError(f"{name[:40]}...: not a measure name like nDCG@10 or P(rel=2)@5 "
                         f"(longer than {_LONGEST} characters)")
    try:
        node = ast.parse(name, mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError):  # deep nesting, NUL bytes
        raise ValueError(f"{name}: not a measure name like nDCG@10 or P(rel=2)@5") from None
    cutoff = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        cutoff = _value(name, node.right)
        node = node.left
    params: dict[str, Any] = {}
    if isinstance(node, ast.Call):
        if node.args:
            raise ValueError(f"{name}: parameters must be named, e.g. P(rel=2)@5")
        for keyword in node.keywords:
            if keyword.arg is None:
                raise ValueError(f"{name}: parameters must be named")
            params[keyword.arg] = _value(name, keyword.value)
        node = node.func
    if not isinstance(node, ast.Name):
        raise ValueError(f"{name}: not a measure name like nDCG@10 or P(rel=2)@5")
    return node.id, params, cutoff


def _value(name: str, node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:  # a word such as exp-log2: its text
        return ast.unparse(node).replace(" ", "")


def _integer(text: str, what: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{text}: {what} must be an integer, got {value!r}")
    return value
