"""Every sentence of every document is read at ingest into Statement nodes, cited exactly."""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.service import RulingsService


def test_every_statement_cites_its_sentence_exactly(
    kg: KnowledgeGraph, documents: dict[str, str]
) -> None:
    statements = kg.of_type("Statement")
    assert len(statements) > 300
    by_doc = {s.span.document for s in statements if s.span}
    assert by_doc == set(documents)  # every document is read, not only the refined ones
    for s in statements:
        assert (
            s.span is not None and s.text == documents[s.span.document][s.span.start : s.span.end]
        )
        start, end = s.props["clause"]
        assert s.span.start <= start < end <= s.span.end
        assert s.props["format"] and s.props["modality"] in ("fact", "can", "must", "always")
        assert kg.get(s.parent or "") is not None


def test_a_negative_rule_is_read_negative(kg: KnowledgeGraph) -> None:
    """The Tag Duel rule that a duelist may not activate the teammate's effects."""
    found = [
        s
        for s in kg.of_type("Statement")
        if s.props["format"] == "tag" and s.props["negative"] and s.props["modality"] == "can"
    ]
    assert found  # some "não podem" rule of the Tag Duel document


def test_stats_count_statements_and_unread_sentences(service: RulingsService) -> None:
    stats = service.stats()
    assert stats["statements"] == len(service.kg.of_type("Statement"))
    assert 0 <= stats["statements_unread"] < stats["statements"]


def test_orders_told_by_sentences_are_read_at_ingest(kg: KnowledgeGraph) -> None:
    """A sentence telling an order carries its steps, each a stretch of the sentence."""
    ordered = [s for s in kg.of_type("Statement") if s.props.get("order")]
    assert ordered
    for s in ordered:
        order = s.props["order"]
        assert order["steps"] and (len(order["steps"]) >= 2 or order["frame"])
        for step in order["steps"]:
            start, end = step["span"]
            assert 0 <= start < end <= len(s.text or "")


def test_a_pronoun_opening_a_sentence_is_read_as_the_class_before_it(
    kg: KnowledgeGraph, documents: dict[str, str]
) -> None:
    """'Invocações inerentes … Eles são invocados sempre da mão': the pronoun's sentence is
    about the class the sentence before was about, not about a player."""
    resolved = [
        s
        for s in kg.of_type("Statement")
        if s.span is not None
        and documents[s.span.document][s.span.start :].startswith("Eles ")
        and s.props["actor"] is None
    ]
    assert resolved
    for s in resolved:
        roles = dict((e, r) for e, r in s.props["roles"])
        assert "subject" in roles.values()


def test_a_numbered_labels_title_after_a_dash_is_not_a_run_in_bullet() -> None:
    from ingest.statements import _pieces

    text = "Não podem ativar na ou após a Sub-etapa 4 - Cálculo de Dano."
    assert [p.text for p in _pieces(text, 0, len(text))] == [text]
    listed = "Estes monstros -PODEM ser negados -NÃO PODEM ser devolvidos"
    assert [p.text for p in _pieces(listed, 0, len(listed))] == [
        "Estes monstros",
        "-PODEM ser negados",
        "-NÃO PODEM ser devolvidos",
    ]
