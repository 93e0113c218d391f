"""bench.fit: the coordinate search over the matcher's tuned values, and the split it reports."""

from __future__ import annotations

from dataclasses import dataclass

from bench.fit import GRID, Item, Tuned, coordinate_search, evaluation_items, value_of, with_value
from bench.quality import REPO
from kb.answering.claims import ClaimSettings
from kb.config import Settings
from kb.reason.order import OrderSettings
from kb.reason.statement_match import StatementSettings


@dataclass(frozen=True)
class Two:
    a: float = 0.0
    b: float = 0.0


def test_the_search_finds_each_best_value_and_keeps_ties() -> None:
    def score(v: Two) -> int:  # best at a=2 whatever b; b only matters at 3
        return -abs(int(v.a) - 2) * 10 + (5 if v.b == 3 else 0)

    best, got, trials = coordinate_search(Two(), {"a": (1, 2, 3), "b": (1, 3)}, score)
    assert best == Two(a=2, b=3) and got == 5
    assert [(t.name, t.value, t.kept) for t in trials] == [
        ("a", 1, True),
        ("a", 2, True),
        ("a", 3, False),
        ("b", 1, False),
        ("b", 3, True),
    ]
    flat, _, _ = coordinate_search(Two(), {"a": (1, 2)}, lambda v: 0)
    assert flat == Two()  # a tie keeps the value it had


def test_the_grid_names_the_answerers_values_and_holds_todays() -> None:
    today = Tuned(StatementSettings(), ClaimSettings(), OrderSettings())
    settings = Settings()
    for name, values in GRID.items():
        assert value_of(today, name) in values, name
        # each is a setting of the service (YGO_<GROUP>_<FIELD>) with the same default
        assert getattr(settings, name.replace(".", "_")) == value_of(today, name), name
    assert {name.split(".")[0] for name in GRID} == {"statement", "claim", "order"}


def test_a_nested_value_is_replaced_and_nothing_else() -> None:
    today = Tuned(StatementSettings(), ClaimSettings(), OrderSettings())
    moved = with_value(today, "claim.min_score", 0.9)
    assert moved.claim.min_score == 0.9 and value_of(moved, "claim.min_score") == 0.9
    assert moved.statement == today.statement and moved.order == today.order
    assert moved.claim == ClaimSettings(min_score=0.9)


def test_every_question_is_asked_and_the_halves_are_stable() -> None:
    items = evaluation_items(REPO / "tests" / "data")
    sets = {i.set for i in items}
    assert {"qa", "pairs", "nonsense", "real_rulings"} <= sets
    assert len([i for i in items if i.set == "pairs"]) % 2 == 0  # both sides of each pair
    fitted = [i for i in items if i.fitted]
    assert 0.4 < len(fitted) / len(items) < 0.6
    again = Item(items[0].set, items[0].question, items[0].format, items[0].verdict)
    assert again.fitted == items[0].fitted
