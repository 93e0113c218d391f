"""RulingsService builds each part on first use: a command reads only what it needs, and
`warm()` builds everything for a server before it serves or forks."""

from __future__ import annotations

from typing import Any

from kb.config import Settings
from kb.service import RulingsService

QUERY_PARTS = ("linker", "index", "answerer")


def fresh(built: Any) -> RulingsService:
    return RulingsService(built.artifact, Settings(data_dir=built.data_dir))


def test_card_commands_build_neither_linker_nor_index_nor_reasoners(lite_built: Any) -> None:
    svc = fresh(lite_built)
    svc.cards("Jinzo", k=1)
    svc.stats()
    built = vars(svc)
    assert "card_service" in built
    assert not [p for p in QUERY_PARTS if p in built]


def test_search_builds_the_index_but_not_the_reasoners(lite_built: Any) -> None:
    svc = fresh(lite_built)
    svc.search("corrente", k=1)
    assert "index" in vars(svc) and "answerer" not in vars(svc)


def test_warm_builds_every_part(lite_built: Any) -> None:
    svc = fresh(lite_built)
    svc.warm()
    assert all(p in vars(svc) for p in QUERY_PARTS)
    assert "card_service" not in vars(svc)
    svc.warm(everything=True)
    assert "card_service" in vars(svc) and "question_bank" in vars(svc)
