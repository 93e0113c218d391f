"""Curated rule claims: loading, anchoring to the document, validation, and the claims in the KB."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.claims import load_claims
from ingest.corpus import SourceDocument
from kb.answering.claims import disjoint_kinds, other_kind
from kb.errors import IngestError
from kb.graph import KnowledgeGraph
from kb.link import Entry, Linker
from kb.model import Fact, Node, Span

TEXT = (
    "Regras\n\n"
    "No Formato Edison, um card é comprado na primeira fase de compra. Assim, começa com 6 cards.\n"
    "Outra regra qualquer. Outra regra qualquer.\n"
)
DOC = SourceDocument("edison", "x.txt", "Regras", "Rules", "pt", "edison", (), TEXT, "0" * 64)


def passage(pid: str, line: str) -> Node:
    start = TEXT.index(line)
    return Node(pid, "Passage", text=line, span=Span("edison", start, start + len(line)))


UNITS = [
    passage(
        "edison/p1",
        "No Formato Edison, um card é comprado na primeira fase de compra. Assim, começa com 6 cards.",
    ),
    passage("edison/p2", "Outra regra qualquer. Outra regra qualquer."),
]
FORMAT_IDS = ("general", "edison", "tag")
LINKER = Linker(
    [Entry("concept/draw-phase", "Concept", "Draw Phase", ("Draw Phase", "Fase de Compra"))]
)

GOOD = """version: 1
document: edison
claims:
  - id: first-player-draws
    quote: "um card é comprado na primeira fase de compra"
    holds: true
    en: "The first player draws in the first Draw Phase."
    pt: "O primeiro jogador compra na primeira Fase de Compra."
  - id: current-no-draw
    format: general
    quote: "começa com 6 cards"
    holds: false
    en: "The first player starts with 5 cards."
    pt: "O primeiro jogador começa com 5 cards."
"""


def write(tmp_path: Path, text: str, name: str = "edison.yaml") -> Path:
    d = tmp_path / "claims"
    d.mkdir(exist_ok=True)
    (d / name).write_text(text, encoding="utf-8")
    return d


def test_claims_become_nodes_anchored_to_their_sentence(tmp_path: Path) -> None:
    nodes, facts = load_claims(write(tmp_path, GOOD), [DOC], UNITS, LINKER, FORMAT_IDS)
    assert [n.id for n in nodes] == [
        "claim/edison/first-player-draws",
        "claim/edison/current-no-draw",
    ]
    first, second = nodes
    assert first.type == "Claim" and first.props["holds"] is True
    assert first.props["format"] == "edison" and second.props["format"] == "general"
    # The cited span is the whole sentence around the quote, exactly the document's slice.
    assert first.span is not None and first.text == TEXT[first.span.start : first.span.end]
    assert first.text == "No Formato Edison, um card é comprado na primeira fase de compra."
    assert second.text == "Assim, começa com 6 cards."
    qs, qe = first.props["quote"]
    assert TEXT[qs:qe] == "um card é comprado na primeira fase de compra"
    by_pred = {(f.subject, f.predicate, f.object) for f in facts}
    assert ("claim/edison/first-player-draws", "stated_in", "edison/p1") in by_pred
    assert ("claim/edison/first-player-draws", "applies_in", "format/general") not in by_pred
    assert ("claim/edison/current-no-draw", "applies_in", "format/general") in by_pred
    assert ("claim/edison/first-player-draws", "concerns", "concept/draw-phase") in by_pred
    assert all(f.source == "edison/p1" and f.authority == "curated" for f in facts)


def test_no_claims_directory_is_fine(tmp_path: Path) -> None:
    assert load_claims(tmp_path / "claims", [DOC], UNITS, LINKER, FORMAT_IDS) == ([], [])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (('"um card é comprado na primeira fase de compra"', '"nada disso"'), "quote not found"),
        (('"um card é comprado na primeira fase de compra"', '"Outra regra"'), "occurs 2 times"),
        (("holds: true", "holds: yes please"), "'holds' must be true or false"),
        (("id: current-no-draw", "id: first-player-draws"), "duplicate claim id"),
        (("id: current-no-draw", "id: Current_No_Draw"), "not kebab-case"),
        (("format: general", "format: speed"), "unknown format 'speed'"),
        (('    en: "The first player starts with 5 cards."\n', ""), "lacks 'en'"),
        (('"começa com 6 cards"', '"Regras"'), "not inside any passage"),
    ],
)
def test_malformed_claims_name_file_claim_and_line(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    old, new = edit
    assert old in GOOD
    with pytest.raises(IngestError, match=message) as info:
        load_claims(write(tmp_path, GOOD.replace(old, new, 1)), [DOC], UNITS, LINKER, FORMAT_IDS)
    assert "edison.yaml" in str(info.value)


def test_claims_file_for_an_unknown_document(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="no document 'rulez'"):
        load_claims(write(tmp_path, GOOD, "rulez.yaml"), [DOC], UNITS, LINKER, FORMAT_IDS)


def test_real_claims_cite_exact_slices(kg: KnowledgeGraph, documents: dict[str, str]) -> None:
    claims = kg.of_type("Claim")
    assert len(claims) >= 200
    assert {c.span.document for c in claims if c.span} == {"edison", "rulings", "tag"}
    for c in claims:
        assert (
            c.span is not None and c.text == documents[c.span.document][c.span.start : c.span.end]
        )
        qs, qe = c.props["quote"]
        assert c.span.start <= qs < qe <= c.span.end
        assert c.label_en and c.label_pt
        (stated,) = kg.out(c.id, "stated_in")
        unit = kg.node(stated.object)
        # The passage stating it contains the quote, or (a list's lead-in) the quote overlaps it.
        assert unit.span is not None and unit.span.start < qe and qs < unit.span.end
    holds = [c.props["holds"] for c in claims]
    assert 0.2 < sum(holds) / len(holds) < 0.9  # true statements and the beliefs they refute


def test_a_card_class_is_one_class_as_monster_or_summon() -> None:
    from kb.answering.claims import _class_kinds

    assert _class_kinds({"concept/synchro-monster", "card/sangan"}) == {"synchro"}
    assert _class_kinds({"concept/synchro-summon"}) == _class_kinds({"concept/synchro-monster"})
    assert _class_kinds({"concept/special-summon", "concept/monster-card"}) == set()


def test_a_claim_about_another_of_exclusive_kinds_is_another_case() -> None:
    disjoint = {
        "concept/limited": frozenset({"concept/semi-limited"}),
        "concept/semi-limited": frozenset({"concept/limited"}),
    }
    asked = {"concept/semi-limited", "concept/team"}
    assert other_kind(asked, {"concept/limited", "concept/team"}, disjoint)
    # naming the asked kind too ("limited to two copies of a Semi-Limited card"): the same case
    assert not other_kind(asked, {"concept/limited", "concept/semi-limited"}, disjoint)
    assert not other_kind(asked, {"concept/team"}, disjoint)
    # a question naming both kinds asks of both
    assert not other_kind(
        {"concept/limited", "concept/semi-limited"}, {"concept/limited"}, disjoint
    )


def test_exclusive_kinds_are_read_both_ways() -> None:
    kg = KnowledgeGraph([], [Fact("concept/a", "disjoint_with", "concept/b", None, "curated")])
    assert disjoint_kinds(kg) == {
        "concept/a": frozenset({"concept/b"}),
        "concept/b": frozenset({"concept/a"}),
    }


def test_a_named_concept_is_one_term_in_either_language() -> None:
    """ "meu companheiro de equipe" (three words) and "my teammate" (one) share the same one
    term with a claim about teammates, so the languages weigh the claim alike."""
    from kb.answering.claims import concept_terms

    linker = Linker(
        [Entry("concept/teammate", "Concept", "Teammate", ("teammate", "companheiro de equipe"))]
    )
    pt = "meu companheiro de equipe pode tributar meu monstro?"
    en = "can my teammate tribute my monster?"
    assert "concept/teammate" in concept_terms(pt, linker.link(pt))
    assert "concept/teammate" in concept_terms(en, linker.link(en))
    assert "tribut" in concept_terms(en, linker.link(en))  # the other words' stems stay
