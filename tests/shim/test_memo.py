"""The memo: a request read once, its answer kept by what was read and each spelling naming it,
a refused query kept by its spelling; and on the real catalogue, answers with the memo are
the bytes answered without it."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bangscore.errors import BadRequest, ParamError
from bangscore.shim.lru import AnswerBudgets
from bangscore.shim.memo import Memo, Rejected
from bangscore.storage import LocalStorage
from tests.support.answer_record import record, requests_of
from tests.support.real_catalogue import SNAPSHOT_ID


@dataclass(frozen=True)
class Answer:
    """An answer of a given weight."""

    body: str
    nbytes: int = 100


class Route:
    """A route over the memo that counts its reads and resolutions."""

    def __init__(self, memo: Memo) -> None:
        self.memo = memo
        self.reads = 0
        self.resolved = 0

    def ask(self, query: str) -> Any:
        def read() -> Hashable:
            self.reads += 1
            if query.startswith("bad"):
                raise BadRequest([ParamError("q", "refused")])
            return query.strip().lower()

        async def resolve(reading: Hashable) -> Answer:
            self.resolved += 1
            return Answer(f"answer to {reading}")

        return asyncio.run(self.memo.answer(("/x", query.encode()), read, resolve))


def test_a_spelling_is_read_once_and_spellings_of_one_reading_share_its_answer() -> None:
    route = Route(Memo(1 << 20))
    first = route.ask("Quest")
    assert route.ask("Quest") is first and route.reads == 1  # the spelling: nothing read
    assert route.ask(" quest") is first and route.reads == 2  # read, then the same answer
    assert route.resolved == 1
    assert route.memo.recall(("/x", b"Quest")) is first
    assert route.memo.recall(("/x", b"other")) is None


def test_a_refused_query_is_kept_by_its_spelling_as_its_errors_alone() -> None:
    route = Route(Memo(1 << 20))
    for _ in range(2):
        with pytest.raises(BadRequest) as refused:
            route.ask("bad one")
        assert refused.value.errors[0].parameter == "q"
    assert route.reads == 1 and route.resolved == 0
    kept = route.memo.recall(("/x", b"bad one"))
    assert isinstance(kept, Rejected) and kept.errors == (ParamError("q", "refused"),)


def test_a_refusal_answer_is_kept_by_its_spelling() -> None:
    memo = Memo(1 << 20)
    made: list[BadRequest] = []

    def read() -> Hashable:
        raise BadRequest([ParamError("page", "an integer")])

    async def resolve(_: Hashable) -> Answer:
        raise AssertionError("a refused query resolves nothing")

    async def refuse(error: BadRequest) -> Answer:
        made.append(error)
        return Answer("the 400 page")

    for _ in range(3):
        page = asyncio.run(memo.answer(("/games", b"page=x"), read, resolve, refuse))
        assert page == Answer("the 400 page")
    assert len(made) == 1


def test_the_memo_holds_its_byte_budget() -> None:
    route = Route(Memo(10_000))
    for n in range(500):
        route.ask(f"query {n}")
    assert 5_000 < route.memo.size <= 10_000
    assert route.memo.recall(("/x", b"query 499")) is not None
    assert route.memo.recall(("/x", b"query 0")) is None  # the oldest went first


def test_answers_on_the_real_catalogue_are_the_bytes_answered_without_the_memo(
    real_snapshot: tuple[LocalStorage, Any], tmp_path: Path
) -> None:
    """Every route, list filter, page and error of tests/support/answer_record.py, asked twice
    (a miss, then the remembered answer) and once more without gzip: the same status,
    headers and bytes as an app whose memos keep nothing (a zero budget)."""
    storage = real_snapshot[0]
    assert len(requests_of(storage, SNAPSHOT_ID)) > 150
    remembered = record(storage, SNAPSHOT_ID, tmp_path / "memo")
    fresh = record(storage, SNAPSHOT_ID, tmp_path / "none", budgets=AnswerBudgets(0))
    assert remembered.keys() == fresh.keys()
    differ = [path for path in remembered if remembered[path] != fresh[path]]
    assert differ == []
    statuses = {answers[0]["status"] for answers in remembered.values()}
    assert {200, 301, 400, 404} <= statuses
