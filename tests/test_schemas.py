"""The typed contracts (kb/schemas.py): real service output fits them, the routes declare them.

The service returns plain dicts; each is validated here against its model on the real corpus for
a varied set of inputs, and the HTTP bodies (routes declare `response_model=`) are checked to be the
service's dicts unchanged. OpenAPI must show a named schema for every JSON 200 response and the
error envelope (never FastAPI's `detail` body) for every error it documents.
"""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel, ValidationError
from tests_support import REPO

from api.app import create_app
from api.routes.web import catalog_view, documents_view
from kb import evaluation
from kb import schemas as S
from kb.service import RulingsService


@pytest.fixture(scope="module")
def client(hash_service: RulingsService) -> TestClient:
    return TestClient(create_app(hash_service), raise_server_exceptions=False)


def dump(model: BaseModel) -> Any:
    """What a route sends for a validated model (by alias, unset defaults left out)."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def fits(model: type[BaseModel], data: Any) -> None:
    """`data` validates against `model`, and nothing is lost or changed doing so."""
    parsed = model.model_validate(data)
    assert dump(parsed) == json.loads(json.dumps(data))


# --- real service output ---------------------------------------------------------------------

QUESTIONS = [
    ("Julgamento Solene pode negar a Invocação do Dragão Cibernético?", None),
    ("Can Divine Wrath negate the summon of Cyber Dragon?", None),
    ("Does summoning Gorz start a chain?", None),
    ("Can I chain Pot of Greed to Storm?", None),
    ("Edison: can I activate Solemn Judgment in the damage step?", None),
    ("Edison: I'm at 2000 LP. Can I pay Mirror Wall's maintenance cost?", None),
    (
        "In SEGOC, does the opponent's optional effect go after the turn player's optional effect?",
        None,
    ),
    ("Quantos Monstros de Armadilha ocupam zona no Edison?", "edison"),
    ("O que acontece no Tag Duel quando um jogador perde?", "tag"),
    ("Qual é a melhor pizza?", None),
    ("Speed Duel: posso ativar uma Skill?", None),
    ("xyzzy plugh", None),
]


@pytest.mark.parametrize(("question", "fmt"), QUESTIONS)
def test_answers_fit_the_model(
    hash_service: RulingsService, question: str, fmt: str | None
) -> None:
    result = hash_service.ask(question, format=fmt, k=3)
    fits(S.Answer, result)


def test_answers_cover_verdicts_reasoners_and_facts(hash_service: RulingsService) -> None:
    """The varied inputs above do exercise yes, no and null, several reasoners and steps."""
    results = [hash_service.ask(q, format=f, k=3) for q, f in QUESTIONS]
    assert {r["verdict"] for r in results} == {"yes", "no", None}
    assert len({r["reasoner"] for r in results}) >= 4
    facts = [s["fact"] for r in results for s in r["reasoning"] if "fact" in s]
    assert {f["authority"] for f in facts} >= {"document", "inferred"}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"q": "corrente", "k": 20},
        {"q": "Jinzo Monstro de Armadilha", "k": 5, "format": "edison"},
        {"q": "damage step", "k": 10, "type": "Step"},
        {"q": "Tag Duel teammate", "k": 5, "type": "Example,Passage", "format": "tag"},
    ],
)
def test_search_fits_the_model(hash_service: RulingsService, kwargs: dict[str, Any]) -> None:
    fits(S.SearchResult, hash_service.search(**kwargs))


@pytest.mark.parametrize(
    "text",
    ["Solemn Judgement vs Dragão Cibernético em Edison", "corrente e elo", "nada aqui"],
)
def test_link_fits_the_model(hash_service: RulingsService, text: str) -> None:
    fits(S.LinkResult, hash_service.link(text))


def test_stats_fit_the_model(hash_service: RulingsService) -> None:
    fits(S.Stats, hash_service.stats())


def test_every_kind_of_node_fits_the_model(hash_service: RulingsService) -> None:
    kg = hash_service.kg
    for node_type in ("Document", "Section", "Rule", "Passage", "Example", "Step", "Card"):
        for node in kg.of_type(node_type)[:5]:
            fits(S.NodeView, hash_service.show(node.id))
    for node_type in ("Concept", "Format", "Claim"):
        for node in kg.of_type(node_type)[:3]:
            fits(S.NodeView, hash_service.show(node.id))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n": 50, "seed": 1},
        {"n": 10, "seed": 7, "format": "edison"},
        {"n": 5, "seed": 3, "format": "tag"},
        {"n": 5, "seed": 11, "topic": "summon"},
    ],
)
def test_quizzes_and_their_grading_fit_the_models(
    hash_service: RulingsService, kwargs: dict[str, Any]
) -> None:
    quiz = hash_service.quiz(**kwargs)
    fits(S.Quiz, quiz)
    right = [{"id": q["id"], "answer": q["answer"]} for q in quiz["questions"]]
    wrong = [
        {"id": q["id"], "answer": next(o["key"] for o in q["options"] if o["key"] != q["answer"])}
        for q in quiz["questions"]
    ]
    fits(S.QuizCheck, hash_service.quiz_check(right + wrong))


@pytest.mark.parametrize(
    "node_id", ["edison/rule-05", "edison/rule-08", "edison", "card/jinzo", "card/cyber-dragon"]
)
def test_rendered_pages_fit_the_model(hash_service: RulingsService, node_id: str) -> None:
    fits(S.WikiPage, json.loads(hash_service.render(node_id, "json")))


def test_section_pages_fit_the_model(hash_service: RulingsService) -> None:
    for section in hash_service.kg.of_type("Section")[:5]:
        fits(S.WikiPage, json.loads(hash_service.render(section.id, "json")))


def test_web_views_fit_the_models(hash_service: RulingsService) -> None:
    fits(S.Documents, documents_view(hash_service))
    fits(S.Catalog, catalog_view(hash_service))


# --- the HTTP bodies are the service's dicts, and fit -----------------------------------------


def test_route_bodies_fit_and_equal_the_service(
    client: TestClient, hash_service: RulingsService
) -> None:
    question = "Can Divine Wrath negate the summon of Cyber Dragon?"
    cases: list[tuple[Any, type[BaseModel], Any]] = [
        (client.get("/health"), S.Health, None),
        (client.get("/stats"), S.Stats, hash_service.stats()),
        (client.get("/link", params={"q": "Jinzo"}), S.LinkResult, hash_service.link("Jinzo")),
        (
            client.get("/search", params={"q": "corrente", "k": 3}),
            S.SearchResult,
            hash_service.search("corrente", k=3),
        ),
        (
            client.post("/ask", json={"question": question, "k": 3}),
            S.Answer,
            hash_service.ask(question, k=3),
        ),
        (client.get("/id/card/jinzo"), S.NodeView, hash_service.show("card/jinzo")),
        (
            client.get("/quiz", params={"n": 3, "seed": 5}),
            S.Quiz,
            hash_service.quiz(n=3, seed=5),
        ),
        (
            client.get("/rules/edison/rule-05", params={"as": "json"}),
            S.WikiPage,
            json.loads(hash_service.render("edison/rule-05", "json")),
        ),
        (client.get("/documents"), S.Documents, documents_view(hash_service)),
        (client.get("/documents/edison"), S.DocumentText, None),
        (client.get("/catalog"), S.Catalog, catalog_view(hash_service)),
    ]
    for response, model, expected in cases:
        assert response.status_code == 200, response.text
        fits(model, response.json())
        if expected is not None:
            assert response.json() == json.loads(json.dumps(expected)), response.url


@pytest.mark.parametrize(
    ("method", "url", "kwargs", "status"),
    [
        ("get", "/id/edison/rule-55", {}, 404),
        ("get", "/rules/nope/x", {}, 404),
        ("get", "/documents/edisn", {}, 404),
        ("get", "/no/such/route", {}, 404),
        ("get", "/search", {"params": {"q": "chain", "k": 0}}, 422),
        ("post", "/ask", {"json": {}}, 422),
        ("post", "/quiz/check", {"json": {"answers": [{"id": "nope", "answer": "a"}]}}, 422),
        ("get", "/id/edison", {"headers": {"accept": "image/png"}}, 406),
        ("get", "/vocab", {"params": {"as": "pdf"}}, 422),
    ],
)
def test_errors_fit_the_envelope(
    client: TestClient, method: str, url: str, kwargs: dict[str, Any], status: int
) -> None:
    response = getattr(client, method)(url, **kwargs)
    assert response.status_code == status, response.text
    body = S.ErrorEnvelope.model_validate(response.json())
    assert body.status == status and body.ok is False
    if status == 404 and url != "/no/such/route":
        assert body.suggestions
    if status == 406:
        assert body.available


# --- the models are strict where the shape is closed ------------------------------------------


def test_closed_models_refuse_unknown_keys_and_bad_values(hash_service: RulingsService) -> None:
    answer = hash_service.ask("Does summoning Gorz start a chain?", k=2)
    for change in (
        {"extra": 1},
        {"verdict": "maybe"},
        {"confidence": 1.5},
        {"entities": [{"id": "x", "type": "Rule", "label": "x", "span": [0, 1]}]},
    ):
        with pytest.raises(ValidationError):
            S.Answer.model_validate({**answer, **change})


def test_the_answer_model_holds_the_design_contract() -> None:
    contract = {
        "question",
        "format",
        "verdict",
        "answer",
        "confidence",
        "reasoning",
        "citations",
        "entities",
        "related",
    }
    assert contract <= set(S.Answer.model_fields)
    assert set(S.ReasoningStep.model_fields) >= {"step", "source"}
    citation = {"id", "document", "section", "text", "start", "end", "score"}
    assert set(S.AnswerCitation.model_fields) == citation
    assert set(S.Entity.model_fields) == {"id", "type", "label", "span"}


def test_the_evaluation_and_the_page_read_the_answer_fields() -> None:
    """Field names read by kb/evaluation.py and by the page's answer card are the model's."""
    fields = set(S.Answer.model_fields)
    read_by_eval = set(re.findall(r'result\["(\w+)"\]', inspect.getsource(evaluation)))
    assert read_by_eval and read_by_eval <= fields
    script = (REPO / "api" / "static" / "answer.js").read_text("utf-8")
    card = script.split("function answerCard(a", 1)[1].split("\n}\n", 1)[0]
    read_by_page = set(re.findall(r"\ba\.(\w+)", card))
    assert read_by_page and read_by_page <= fields
    citation_fields = set(S.AnswerCitation.model_fields)
    assert {"id", "text", "start", "end", "document"} <= citation_fields


# --- OpenAPI ---------------------------------------------------------------------------------


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


# JSON 200 responses that are a standard format rather than one of our models.
STANDARD_JSON = {
    "GET /sparql": "SPARQL 1.1 Query Results JSON (W3C), documented by its media types",
    "POST /sparql": "SPARQL 1.1 Query Results JSON (W3C), documented by its media types",
    "GET /context.jsonld": "a JSON-LD 1.1 context (W3C), documented by its media type",
}


def test_openapi_names_a_schema_for_every_json_response(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    json_routes: set[str] = set()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            where = f"{method.upper()} {path}"
            ok = operation["responses"].get("200", {}).get("content", {})
            if "application/json" in ok and where not in STANDARD_JSON:
                json_routes.add(where)
                assert "$ref" in ok["application/json"].get("schema", {}), where
            for code, response in operation["responses"].items():
                if code.startswith(("4", "5")):
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorEnvelope"}, where
    assert {
        "GET /health",
        "GET /search",
        "POST /ask",
        "GET /link",
        "GET /stats",
        "GET /id/{node_id}",
        "GET /rules/{node_id}",
        "GET /cards/{card_id}",
        "GET /quiz",
        "POST /quiz/check",
        "GET /documents",
        "GET /documents/{doc}",
        "GET /catalog",
    } <= json_routes
    assert "HTTPValidationError" not in components
    for ref in _refs(spec):
        assert ref.removeprefix("#/components/schemas/") in components, ref
