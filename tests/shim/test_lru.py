"""The server's one cache type: bounded by count or by weight, least recently used dropped
first, and consistent when threads use it at once."""

from __future__ import annotations

import threading

import pytest

from bangscore.shim.lru import AnswerBudgets, Lru


def test_least_recently_used_goes_first() -> None:
    lru: Lru[str] = Lru(2)
    lru.put("a", "A")
    lru.put("b", "B")
    assert lru.find("a") == "A"  # now "b" is the least recently used
    lru.put("c", "C")
    assert (lru.find("a"), lru.find("b"), lru.find("c")) == ("A", None, "C")
    assert (len(lru), lru.size) == (2, 2)


@pytest.mark.parametrize(
    ("bodies", "kept"),
    [
        ([b"x" * 4, b"y" * 4, b"z" * 4], [1, 2]),
        ([b"x" * 11], []),
        ([b"x" * 6, b"y" * 5], [1]),
    ],
    ids=["fills-the-budget", "heavier-than-the-budget", "one-evicts-another"],
)
def test_a_weight_budget_bounds_the_bytes_held(bodies: list[bytes], kept: list[int]) -> None:
    lru: Lru[bytes] = Lru(10, weigh=len)
    for i, body in enumerate(bodies):
        lru.put(i, body)
    assert [i for i in range(len(bodies)) if lru.find(i) is not None] == kept
    assert lru.size == sum(len(bodies[i]) for i in kept) <= 10


def test_get_computes_once_per_key_and_clear_empties() -> None:
    lru: Lru[int] = Lru(8)
    calls: list[int] = []

    def make() -> int:
        calls.append(1)
        return 42

    for _ in range(3):
        assert lru.get("k", make) == 42
    assert calls == [1]
    lru.clear()
    assert (len(lru), lru.size, lru.find("k")) == (0, 0, None)


def test_threads_never_break_the_bound_or_the_weights() -> None:
    lru: Lru[bytes] = Lru(1000, weigh=len)
    start = threading.Barrier(4)

    def work(n: int) -> None:
        start.wait()
        for i in range(2000):
            lru.put((n, i % 150), bytes(1 + i % 17))
            lru.find((n - 1, i % 150))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    held = [lru.find((n, i)) for n in range(4) for i in range(150)]
    assert lru.size == sum(len(b) for b in held if b is not None) <= 1000


@pytest.mark.parametrize("total", [1 << 20, 96 << 20, 12_345_679], ids=["1MiB", "96MiB", "odd"])
def test_answer_budgets_share_out_no_more_than_the_total(total: int) -> None:
    budgets = AnswerBudgets(total)
    shares = [budgets.answers, budgets.pages]
    assert total - 2 <= sum(shares) <= total
    assert budgets.answers > budgets.pages > 0
