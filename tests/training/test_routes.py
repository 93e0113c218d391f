"""The training routes through the ASGI app, over the real KB's question bank and a SQLite
database under tmp_path: no route shows a key before its answer (practice) or its close (exam),
tokens are bearer tokens, errors are the JSON envelope (401, 404, 409, 422, 503), answers are
personal (no-store, never a 304)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from kb.service import RulingsService, check_format
from kb.training.database import Database, database_url
from kb.training.service import TrainingService
from training.conftest import FixedClock  # type: ignore[import-not-found]

KEY_FIELDS = {"answer", "explanation", "citation", "expected", "expected_text", "correct"}


def keyless(value: Any) -> bool:
    """No key field anywhere in a response (at any depth)."""
    if isinstance(value, dict):
        return not KEY_FIELDS & set(value) and all(keyless(v) for v in value.values())
    if isinstance(value, list):
        return all(keyless(v) for v in value)
    return True


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def client(
    service: RulingsService, tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> Iterator[TestClient]:
    training = TrainingService(
        lambda: service.question_bank,
        "test-build",
        lambda fmt: check_format(fmt, service.formats),
        Database(database_url(None, tmp_path)),
        clock,
    )
    monkeypatch.setitem(service.__dict__, "training", training)
    with TestClient(create_app(service)) as client:
        yield client


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_token(client: TestClient) -> str:
    r = client.post("/trainees", json={"name": "Ana"})
    assert r.status_code == 201 and r.headers["cache-control"] == "no-store"
    return str(r.json()["token"])


def test_practice_shows_keys_only_after_each_answer(
    client: TestClient, service: RulingsService
) -> None:
    h = auth(new_token(client))
    r = client.post("/practice", json={"format": "edison", "n": 3}, headers=h)
    assert r.status_code == 201 and keyless(r.json()), r.json()
    session = r.json()
    for q in session["questions"]:
        assert q["format"] == "edison" and q["options"]
    got = client.get(f"/practice/{session['id']}", headers=h)
    assert (
        got.status_code == 200
        and keyless(got.json())
        and got.headers["cache-control"] == "no-store"
    )
    assert "etag" not in got.headers
    again = client.get(
        f"/practice/{session['id']}", headers={**h, "If-None-Match": got.headers.get("etag", "*")}
    )
    assert again.status_code == 200
    head = client.head(f"/practice/{session['id']}", headers=h)
    assert head.status_code == 200 and not head.content and "etag" not in head.headers
    qid = session["questions"][0]["id"]
    key = service.question_bank.by_id[qid].answer
    fb = client.post(
        f"/practice/{session['id']}/answers", json={"question_id": qid, "answer": key}, headers=h
    )
    assert fb.status_code == 200, fb.json()
    assert fb.json()["correct"] is True and fb.json()["citation"]["document"] == "edison"
    twice = client.post(
        f"/practice/{session['id']}/answers", json={"question_id": qid, "answer": key}, headers=h
    )
    assert twice.status_code == 409 and twice.json()["code"] == "conflict"
    assert twice.json()["params"]["key"] == qid
    progress = client.get("/progress", headers=h).json()
    assert progress["answers"] == 1 and progress["by_format"][0]["key"] == "edison"


def test_an_exam_shows_keys_only_after_it_is_closed(client: TestClient) -> None:
    h = auth(new_token(client))
    r = client.post("/exams", json={"n": 4, "time_limit": 600, "pass_mark": 0.5}, headers=h)
    assert r.status_code == 201 and keyless(r.json())
    exam = r.json()
    assert exam["deadline"] and exam["pass_mark"] == 0.5
    qid = exam["questions"][0]["id"]
    ack = client.post(
        f"/exams/{exam['id']}/answers", json={"question_id": qid, "answer": 1}, headers=h
    )
    assert ack.status_code == 200 and keyless(ack.json()) and ack.json()["remaining"] == 3
    assert keyless(client.get(f"/exams/{exam['id']}", headers=h).json())
    progress = client.get("/progress", headers=h).json()  # an open exam's answers say nothing
    assert progress["answers"] == 0 and progress["by_topic"] == []
    assert client.get("/history", headers=h).json()["answers"] == []
    early = client.get(f"/exams/{exam['id']}/result", headers=h)
    assert early.status_code == 409 and keyless(early.json())
    closed = client.post(f"/exams/{exam['id']}/close", headers=h)
    assert closed.status_code == 200
    result = closed.json()
    assert result["total"] == 4 and len(result["missed"]) >= 3
    assert all(m["explanation"] and m["citation"]["text"] for m in result["missed"])
    assert client.post(f"/exams/{exam['id']}/close", headers=h).status_code == 409
    late = client.post(
        f"/exams/{exam['id']}/answers", json={"question_id": qid, "answer": 1}, headers=h
    )
    assert late.status_code == 409
    assert client.get(f"/exams/{exam['id']}/result", headers=h).json() == result


def test_the_time_limit_is_the_servers(client: TestClient, clock: FixedClock) -> None:
    h = auth(new_token(client))
    exam = client.post("/exams", json={"n": 2, "time_limit": 30}, headers=h).json()
    clock.advance(seconds=31)
    qid = exam["questions"][0]["id"]
    late = client.post(
        f"/exams/{exam['id']}/answers", json={"question_id": qid, "answer": 1}, headers=h
    )
    assert late.status_code == 409 and "time limit" in late.json()["error"]
    result = client.get(f"/exams/{exam['id']}/result", headers=h).json()
    assert result["timed_out"] is True and result["answered"] == 0 and result["passed"] is False


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/practice", {}),
        ("get", "/practice/abc", None),
        ("post", "/practice/abc/answers", {"question_id": "x", "answer": 1}),
        ("post", "/exams", {}),
        ("get", "/exams/abc", None),
        ("post", "/exams/abc/answers", {"question_id": "x", "answer": 1}),
        ("post", "/exams/abc/close", None),
        ("get", "/exams/abc/result", None),
        ("get", "/progress", None),
        ("get", "/history", None),
        ("post", "/history", {"answers": [], "reviews": []}),
    ],
)
def test_every_training_route_needs_a_valid_token(
    client: TestClient, method: str, path: str, body: dict | None
) -> None:
    for headers in ({}, auth("not-a-token"), {"Authorization": "Basic abc"}):
        kwargs: dict[str, Any] = {"headers": headers}
        if body is not None:
            kwargs["json"] = body
        r = getattr(client, method)(path, **kwargs)
        assert r.status_code == 401, (path, r.json())
        assert r.json()["ok"] is False and r.json()["code"] == "unauthorized"
        assert r.headers["www-authenticate"].startswith("Bearer")


def test_bad_input_names_the_field(client: TestClient) -> None:
    h = auth(new_token(client))
    cases = [
        ("/practice", {"n": 0}, "n"),
        ("/practice", {"format": "pauper"}, "format"),
        ("/practice", {"topics": ["chain", "nope"]}, "topics[1]"),
        ("/practice", {"format": "tag", "topics": ["damage-step"]}, "topic"),
        ("/exams", {"time_limit": 5}, "time_limit"),
        ("/exams", {"pass_mark": 2}, "pass_mark"),
        ("/exams", {"n": 3, "extra": 1}, "extra"),
        ("/trainees", {"name": "x" * 81}, "name"),
    ]
    for path, body, field in cases:
        r = client.post(path, json=body, headers=h)
        assert r.status_code == 422 and r.json()["field"] == field, (body, r.json())
    session = client.post("/practice", json={"n": 1}, headers=h).json()
    qid = session["questions"][0]["id"]
    bad = client.post(
        f"/practice/{session['id']}/answers", json={"question_id": qid, "answer": "zz"}, headers=h
    )
    assert bad.status_code == 422 and bad.json()["field"] == "answer"
    assert client.get("/practice/nope", headers=h).status_code == 404
    assert client.get(f"/exams/{session['id']}", headers=h).status_code == 404  # not an exam


def test_history_export_and_import(client: TestClient) -> None:
    h = auth(new_token(client))
    session = client.post("/practice", json={"n": 2}, headers=h).json()
    for q in session["questions"]:
        client.post(
            f"/practice/{session['id']}/answers",
            json={"question_id": q["id"], "answer": 1},
            headers=h,
        )
    history = client.get("/history", headers=h).json()
    assert len(history["answers"]) == 2
    other = auth(new_token(client))
    r = client.post("/history", json=history, headers=other)
    assert r.status_code == 200 and r.json() == {"answers": 2, "skipped": 0, "reviews": 2}


def test_an_unreachable_database_fails_training_routes_only(
    service: RulingsService, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    training = TrainingService(
        lambda: service.question_bank,
        "test-build",
        lambda fmt: check_format(fmt, service.formats),
        Database("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=2"),
        clock,
    )
    monkeypatch.setitem(service.__dict__, "training", training)
    client = TestClient(create_app(service))
    r = client.post("/trainees", json={})
    assert r.status_code == 503 and r.json()["code"] == "database_unavailable"
    assert r.headers["retry-after"]
    assert client.get("/progress", headers=auth("abc")).status_code == 503
    assert client.get("/stats").status_code == 200
    assert client.get("/quiz", params={"n": 1, "seed": 1}).status_code == 200


def test_training_routes_choose_the_language(client: TestClient) -> None:
    """Practice and exams in English: same ids and keys, English words; an unknown lang is a 422
    naming it."""
    h = auth(new_token(client))
    body = {"topics": ["summon"], "n": 3}
    pt = client.post("/practice", json=body, headers=h).json()
    en = client.get(f"/practice/{pt['id']}", params={"lang": "en"}, headers=h).json()
    assert [q["id"] for q in en["questions"]] == [q["id"] for q in pt["questions"]]
    assert en["questions"] != pt["questions"] and keyless(en)
    assert not any(q["prompt"].startswith(("Segundo", "Verdadeiro")) for q in en["questions"])
    q = en["questions"][0]
    fb = client.post(
        f"/practice/{pt['id']}/answers",
        params={"lang": "en"},
        json={"question_id": q["id"], "answer": q["options"][0]["text"]},
        headers=h,
    ).json()
    assert fb["expected_text"] in [o["text"] for o in q["options"]]
    exam = client.post("/exams", params={"lang": "en"}, json=body, headers=h)
    assert exam.status_code == 201 and keyless(exam.json())
    assert not any(
        q["prompt"].startswith(("Segundo", "Verdadeiro")) for q in exam.json()["questions"]
    )
    closed = client.post(f"/exams/{exam.json()['id']}/close", params={"lang": "en"}, headers=h)
    assert closed.status_code == 200
    for method, path in (
        ("post", "/practice"),
        ("post", "/exams"),
        ("get", f"/practice/{pt['id']}"),
        ("get", f"/exams/{exam.json()['id']}/result"),
    ):
        kwargs = {"json": body} if method == "post" else {}
        r = client.request(method, path, params={"lang": "xx"}, headers=h, **kwargs)
        assert r.status_code == 422 and r.json()["field"] == "lang", (path, r.json())
