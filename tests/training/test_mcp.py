"""The MCP training tools: the same service calls as the routes, keys only after an answer or
the close, errors naming the argument (the protocol itself is tested by tests/test_mcp.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from api.mcp_server import run, validated
from api.mcp_training import TRAINING_TOOLS
from kb.training.database import Database
from kb.training.service import TrainingService
from training.bank import small_bank  # type: ignore[import-not-found]
from training.conftest import FixedClock, check_format  # type: ignore[import-not-found]

SPECS = {spec.name: spec for spec in TRAINING_TOOLS}


class FakeService:
    """What the training tools read of RulingsService: its `training`."""

    def __init__(self, training: TrainingService) -> None:
        self.training = training


@pytest.fixture
def call(database: Database) -> Any:
    bank = small_bank()
    service = FakeService(TrainingService(lambda: bank, "b1", check_format, database, FixedClock()))

    def call(tool: str, /, **arguments: Any) -> dict[str, Any]:
        spec = SPECS[tool]
        result = run(spec, service, validated(spec.args, arguments))  # type: ignore[arg-type]
        data: dict[str, Any] = result.structured_content or {}
        spec.result.model_validate(data)
        return data

    return call


def test_a_trainee_practises_and_sits_an_exam(call: Any) -> None:
    token = call("create_trainee", name="Ana")["token"]
    session = call("start_practice", token=token, format="edison", n=2)
    assert "answer" not in json.dumps(session["questions"])
    qid = session["questions"][0]["id"]
    fb = call("answer_practice", token=token, session_id=session["id"], question_id=qid, answer=1)
    assert fb["expected"] and fb["citation"]["text"]
    exam = call("start_exam", token=token, n=2, pass_mark=0.5)
    ack = call(
        "answer_exam",
        token=token,
        exam_id=exam["id"],
        question_id=exam["questions"][0]["id"],
        answer=1,
    )
    assert set(ack) == {"question_id", "recorded", "answered", "remaining", "deadline"}
    result = call("close_exam", token=token, exam_id=exam["id"])
    assert result["total"] == 2 and result == call("exam_result", token=token, exam_id=exam["id"])
    assert call("progress", token=token)["answers"] == 2


def test_errors_name_what_is_wrong(call: Any) -> None:
    with pytest.raises(ToolError, match="unknown trainee token"):
        call("progress", token="nope")
    token = call("create_trainee")["token"]
    with pytest.raises(ToolError, match="n"):
        call("start_exam", token=token, n=0)
    with pytest.raises(ToolError, match="extra"):
        call("start_practice", token=token, extra=1)
    with pytest.raises(ToolError, match="session_id"):
        call("answer_practice", token=token, session_id="zz", question_id="q", answer=1)


def test_the_training_tools_ask_in_the_language_given(call: Any) -> None:
    token = call("create_trainee")["token"]
    pt = call("start_practice", token=token, n=2)
    en = call("start_practice", token=token, n=2, lang="en")
    assert len(en["questions"]) == len(pt["questions"])
    exam = call("start_exam", token=token, n=2, lang="en")
    result = call("close_exam", token=token, exam_id=exam["id"], lang="en")
    assert result == call("exam_result", token=token, exam_id=exam["id"], lang="en")
    with pytest.raises(ToolError, match="lang"):
        call("start_exam", token=token, n=2, lang="es")
