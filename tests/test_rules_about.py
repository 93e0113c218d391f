"""`RulingsService.rules_about` (kb/search/about.py) and `RulingsService.card` (kb/cards/report.py)
over the real corpus: what they find, that every quote is the document's exact slice, and that
bad parameters are refused naming the parameter."""

from __future__ import annotations

import pytest

from kb.cards.banlist import Legality
from kb.cards.report import CardReport
from kb.errors import InvalidQuery, NotFound
from kb.search.about import RulesAbout
from kb.service import RulingsService


def exact(span: dict[str, object], documents: dict[str, str]) -> bool:
    doc, start, end = span["document"], span["start"], span["end"]
    assert isinstance(doc, str) and isinstance(start, int) and isinstance(end, int)
    return span["text"] == documents[doc][start:end]


def test_statements_about_a_class_in_one_format(
    service: RulingsService, documents: dict[str, str]
) -> None:
    result = service.rules_about("concept/union-monster", format="edison", k=100)
    RulesAbout.model_validate(result)
    statements = result["statements"]
    assert result["subject"]["id"] == "concept/union-monster"
    assert result["total"] == len(statements) >= 5
    assert {s["format"] for s in statements} == {"edison"}
    # Named in a role, then met as a sentence of Edison's Union rule (which says "it").
    assert [s["via"] for s in statements] == sorted(
        (s["via"] for s in statements), key=["role", "condition", "section"].index
    )
    assert {"role", "section"} <= {s["via"] for s in statements}
    for s in statements:
        assert exact(s["citation"], documents), s["id"]
        clause = s["clause"]
        assert (
            clause["text"] == documents[s["citation"]["document"]][clause["start"] : clause["end"]]
        )
        assert s["citation"]["start"] <= clause["start"] <= clause["end"] <= s["citation"]["end"]
        if s["via"] == "role":
            assert "concept/union-monster" in {r["entity"] for r in s["roles"]}


def test_a_name_finds_the_subject_an_id_names(service: RulingsService) -> None:
    by_id = service.rules_about("concept/union-monster")
    for name in ("Union monster", "monstros union"):
        assert service.rules_about(name) == by_id


def test_narrower_concepts_count_after_the_subject(service: RulingsService) -> None:
    result = service.rules_about("concept/chain", k=100)
    assert "concept/chain-link" in result["subject"]["narrower"]
    roles = [s["matched"] for s in result["statements"] if s["via"] == "role"]
    assert roles[0] == "concept/chain"
    assert "concept/chain-link" in roles
    first_narrower = next(i for i, m in enumerate(roles) if m != "concept/chain")
    assert set(roles[first_narrower:]) <= set(result["subject"]["narrower"])


def test_k_limits_the_list_not_the_total(service: RulingsService) -> None:
    every = service.rules_about("concept/chain", k=100)
    two = service.rules_about("concept/chain", k=2)
    assert two["total"] == every["total"] > 2
    assert two["statements"] == every["statements"][:2]


@pytest.mark.parametrize(
    ("subject", "kwargs", "error", "field"),
    [
        (" ", {}, InvalidQuery, "subject"),
        ("edison/rule-10", {}, InvalidQuery, "subject"),
        ("chain", {"format": "nope"}, InvalidQuery, "format"),
        ("chain", {"k": 0}, InvalidQuery, "k"),
    ],
)
def test_bad_parameters_name_the_parameter(
    service: RulingsService,
    subject: str,
    kwargs: dict[str, object],
    error: type[Exception],
    field: str,
) -> None:
    with pytest.raises(error) as raised:
        service.rules_about(subject, **kwargs)  # type: ignore[arg-type]
    assert str(raised.value).startswith(f"{field}: ")


def test_an_unknown_subject_suggests_concepts(service: RulingsService) -> None:
    with pytest.raises(NotFound) as raised:
        service.rules_about("qqzzxxyy")
    assert raised.value.params["what"] == "subject"


def test_card_report_in_every_format_with_card_rules(
    service: RulingsService, documents: dict[str, str]
) -> None:
    report = service.card("jinzo")
    CardReport.model_validate(report)
    assert report["card"]["id"] == "card/jinzo"
    assert [item["format"] for item in report["legality"]] == list(
        service.card_service.accepted_formats("rules")
    )
    predicates = {f["predicate"] for f in report["card"]["out"]}
    assert "has_capability" in predicates  # Jinzo negates Trap effects
    assert report["named_in"], "the Edison rules name Jinzo"
    quoted = [*report["named_in"], *(p for c in report["class_rules"] for p in c["passages"])]
    assert quoted
    assert all(exact(span, documents) for span in quoted)
    assert all("Jinzo" in span["text"] for span in report["named_in"])


def test_card_report_in_one_format(service: RulingsService) -> None:
    report = service.card("Cyber Dragon", format="edison")
    (legality,) = report["legality"]
    assert Legality.model_validate(legality).format == "edison"
    assert legality == service.card_legality("card/cyber-dragon", "edison")


@pytest.mark.parametrize(
    ("card", "format", "error"),
    [("no such card qqzz", None, NotFound), ("jinzo", "general", InvalidQuery)],
)
def test_card_errors(
    service: RulingsService, card: str, format: str | None, error: type[Exception]
) -> None:
    with pytest.raises(error):
        service.card(card, format=format)
