"""Water-filling at one instant against the paper's recursive definition, done naively."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backfill import BackfillError
from backfill.schedulers.machinery.entitlement import entitled_processors


def recursive_division(requests: list[float], shares: list[float], capacity: float) -> list[float]:
    """Vasupongayya §III-C (1), word for word: divide by share among the active users; whoever is
    entitled to more than it requests gets its request; divide what is left among the others, again."""
    out = [0.0] * len(requests)
    left = list(range(len(requests)))
    remaining = float(capacity)
    while left:
        total = sum(shares[i] for i in left)
        capped = [i for i in left if remaining * shares[i] / total >= requests[i]]
        if not capped:
            for i in left:
                out[i] = remaining * shares[i] / total
            break
        for i in capped:
            out[i] = float(requests[i])
            remaining -= requests[i]
        left = [i for i in left if i not in capped]
    return out


users = st.lists(
    st.tuples(st.integers(0, 300), st.sampled_from([0.5, 1.0, 1.0, 2.0, 3.0])), min_size=0, max_size=12
)


@given(users=users, capacity=st.integers(0, 512))
def test_water_filling_is_the_recursive_division(users: list[tuple[int, float]], capacity: int) -> None:
    requests = [float(r) for r, _ in users]
    shares = [s for _, s in users]
    fast = entitled_processors(requests, shares, capacity)
    assert fast == pytest.approx(recursive_division(requests, shares, capacity), rel=1e-12, abs=1e-9)
    assert sum(fast) == pytest.approx(min(capacity, sum(requests)), rel=1e-12, abs=1e-9)
    assert all(0 <= e <= r + 1e-9 for e, r in zip(fast, requests, strict=True))


def test_the_papers_equal_share_example() -> None:
    # 128 nodes, three active users: the one asking for 10 gets 10, the other two split 118.
    assert entitled_processors([10, 200, 300], [1, 1, 1], 128) == [10.0, 59.0, 59.0]


@pytest.mark.parametrize(
    ("requests", "shares", "capacity"),
    [([1], [1, 2], 4), ([1], [0], 4), ([-1], [1], 4), ([1], [1], -4), ([float("nan")], [1], 4)],
)
def test_bad_arguments_raise(requests: list[float], shares: list[float], capacity: float) -> None:
    with pytest.raises(BackfillError):
        entitled_processors(requests, shares, capacity)
