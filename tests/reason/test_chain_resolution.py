"""Where the rule that a chain resolves from the last link is found, on small hand-made graphs."""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.model import Node, Span
from kb.reason.chain_resolution import resolution_rule


def _graph(negative: bool, ordinals: list[str]) -> KnowledgeGraph:
    text = "Uma vez que a cadeia está completa, ela é resolvida a partir da mais recente."
    span = Span("doc", 0, len(text))
    passage = Node("doc/p-1", "Passage", text=text, span=span)
    props = {
        "negative": negative,
        "ordinals": ordinals,
        "roles": [["concept/chain-resolution", "subject"]],
    }
    statement = Node(
        "doc/p-1/st-01", "Statement", text=text, span=span, parent=passage.id, props=props
    )
    return KnowledgeGraph([passage, statement], [])


def test_a_statement_that_resolution_starts_from_the_last_link_is_the_rule() -> None:
    assert resolution_rule(_graph(False, ["last"])) == "doc/p-1"


def test_a_negative_statement_or_another_end_is_not() -> None:
    assert resolution_rule(_graph(True, ["last"])) is None
    assert resolution_rule(_graph(False, ["first"])) is None
