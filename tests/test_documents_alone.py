"""The seed documents read as if new: manifest rows only (no curated claims, no bespoke parser).

What decides an answer must come from the documents themselves: statements read from every
sentence, facts derived from their roles, the typed reasoners those facts enable. The floors
are today's measured numbers less a margin (README, "How answers are made").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from api.runtime import Runtime, load_runtime
from bench.variants import documents_only
from kb.config import Settings
from kb.evaluation import evaluate_answers, read_jsonl

pytestmark = pytest.mark.model
DATA = Path(__file__).resolve().parent / "data"
CORPUS = Path(__file__).resolve().parents[1] / "corpus"


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory, model_data: Path) -> Runtime:
    root = tmp_path_factory.mktemp("documents-alone")
    documents_only(CORPUS, root / "corpus")
    (root / "data").mkdir()
    (root / "data" / "models").symlink_to(model_data / "models")  # the run's converted model
    return load_runtime(Settings(data_dir=root / "data", corpus_dir=root / "corpus"))


def test_the_copy_has_no_claims_and_no_bespoke_parser(alone: Runtime) -> None:
    corpus = alone.service.settings.corpus_dir
    assert not (corpus / "claims").exists()
    assert "parser:" not in (corpus / "manifest.yaml").read_text(encoding="utf-8")
    assert not alone.service.kg.of_type("Claim")
    calibration = alone.service.answerer.calibration  # fitted on the documents alone
    assert calibration is not None and "documents-alone" in calibration.meta["fitted_by"]


def test_the_chain_reasoner_works_from_facts_the_statements_state(alone: Runtime) -> None:
    kg = alone.service.kg
    derived = kg.with_predicate("can_respond_to")
    assert derived and all(f.authority == "document" for f in derived)
    assert all(kg.node(f.source or "").type in ("Passage", "Example", "Step") for f in derived)
    assert kg.with_predicate("negatable_by")  # an inherent Summon and what negates it
    status = {r["name"]: r["enabled"] for r in alone.service.reasoner_status()}
    assert status["chain"] and status["summon-negation"] and not status["claim"]


def test_the_reasoners_the_statements_enable(alone: Runtime) -> None:
    """What a bespoke parser used to state, the documents' statements state: a cost that may
    not bring Life Points to 0, that only activations form a chain, the order a chain resolves
    in, the ordered steps of a SEGOC."""
    kg = alone.service.kg
    limits = kg.with_predicate("limits_cost")
    assert limits and all(f.authority == "document" for f in limits)
    assert {"min_remaining": 1} in [f.props for f in limits]
    assert kg.with_predicate("formed_only_by")
    status = {r["name"]: r["enabled"] for r in alone.service.reasoner_status()}
    for name in ("lp-cost", "continuous-chain", "chain-order", "chain-resolution", "segoc"):
        assert status[name], name


@pytest.mark.parametrize(
    ("name", "floor"),
    [("real_rulings", 0.82), ("qa_holdout6", 0.68), ("qa", 0.9), ("qa_holdout3", 0.88)],
)
def test_documents_alone_floors(alone: Runtime, name: str, floor: float) -> None:
    overall = evaluate_answers(alone.service, read_jsonl(DATA / f"{name}.jsonl"))["overall"]
    assert overall["verdict_accuracy"] >= floor


def test_documents_alone_still_answers_nonsense_with_null(alone: Runtime) -> None:
    items = [
        {"id": it["id"], "q": it["q"], "format": it.get("format"), "verdict": None, "cite": ""}
        for it in read_jsonl(DATA / "nonsense.jsonl")
    ]
    assert all(alone.service.ask(i["q"], format=i["format"])["verdict"] is None for i in items)


def test_an_english_question_every_word_of_which_the_rules_use_is_in_scope(
    alone: Runtime,
) -> None:
    """An English question aligns less with a Portuguese rule than a Portuguese one would; when
    every word of it is a rule word (the language data bridges it) and the rule names what it
    names, the rule answers however low the cosine."""
    answer = alone.service.ask(
        "During a Tag Duel, may partners talk and compare their hands freely?"
    )
    assert answer["verdict"] == "yes"
    assert "conversar" in answer["citations"][0]["text"]
