"""Regenerate ``spam_filter_20k.tsv``: ``python rankeval/data/make_spam_filter.py``.

A synthetic but realistic stand-in for a spam filter's output on 20,000 held-out messages:
about a quarter are spam (label 1). The filter's logit is normal around +1.5 for spam and
-1.9 for ham; 6% of the spam is written to look like ham (logit around -1.2), which is what
keeps recall from reaching 1 early. Scores are the logistic probability rounded to four
decimals, as a deployed filter would log them, so many messages share a score: the file
exercises the tie policies.

The output is fixed by the seed; ``tests/test_io.py`` checks the bundled file against it.
"""

from __future__ import annotations

import sys

import numpy as np

SEED = 20240607
MESSAGES = 20_000


def spam_filter_tsv(seed: int = SEED, messages: int = MESSAGES) -> str:
    """The file's text: a ``label<TAB>score`` header, then one message a line."""
    rng = np.random.default_rng(seed)
    spam = rng.random(messages) < 0.25
    evasive = spam & (rng.random(messages) < 0.06)
    logit = np.where(spam, rng.normal(1.5, 1.6, messages), rng.normal(-1.9, 1.5, messages))
    logit[evasive] = rng.normal(-1.2, 1.0, int(evasive.sum()))
    score = np.round(1.0 / (1.0 + np.exp(-logit)), 4)
    pairs = zip(spam.tolist(), score.tolist(), strict=True)
    rows = (f"{int(label)}\t{value:.4f}\n" for label, value in pairs)
    return "label\tscore\n" + "".join(rows)


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "spam_filter_20k.tsv"
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(spam_filter_tsv())
