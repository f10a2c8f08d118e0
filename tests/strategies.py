"""Hypothesis strategies shared by the test modules."""

from __future__ import annotations

from hypothesis import strategies as st

# Scores from a small grid force ties; the wide strategy exercises ordering.
tied_scores = st.sampled_from([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0])
wide_scores = st.floats(allow_nan=False, allow_infinity=True, width=64)
scores = st.one_of(tied_scores, wide_scores)

cases = st.lists(st.tuples(st.booleans(), scores), max_size=40)
tied_cases = st.lists(st.tuples(st.booleans(), tied_scores), max_size=40)
distinct_cases = st.lists(
    st.tuples(st.booleans(), st.floats(allow_nan=False, allow_infinity=False)),
    max_size=40,
    unique_by=lambda case: case[1] + 0.0,  # -0.0 and 0.0 tie
)
miss_counts = st.integers(min_value=0, max_value=5)
ties = st.sampled_from(["insertion", "grouped"])

# An operation of a streaming session: ("case", correct, score), ("misses", n), ...
operations = st.lists(
    st.one_of(
        st.tuples(st.just("case"), st.booleans(), scores),
        st.tuples(st.just("misses"), miss_counts),
        st.tuples(st.just("negative_misses"), miss_counts),
        st.tuples(st.just("cases"), st.lists(st.tuples(st.booleans(), scores), max_size=8)),
    ),
    max_size=30,
)
