"""The real `ygo-rulings serve` with two worker processes over one SQLite training database:
the database is migrated before serving, and a trainee's exam started through one request is
answered, closed and graded through others, whichever worker takes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from tests_support import REPO, running_server  # type: ignore[import-not-found]


@pytest.mark.e2e
def test_training_through_a_real_server_with_two_workers(data_copy: Path) -> None:
    env = {"PYTHONPATH": str(REPO)}  # this checkout's code, not another editable install's
    with running_server(data_copy, extra_env=env, workers=2, start_timeout=300) as base:
        assert (data_copy / "training.sqlite3").exists()  # migrated before serving
        with httpx.Client(base_url=base, timeout=30) as http:
            token = http.post("/trainees", json={"name": "Ana"}).json()["token"]
            h = {"Authorization": f"Bearer {token}"}
            exam: dict[str, Any] = http.post(
                "/exams", json={"n": 5, "time_limit": 600}, headers=h
            ).json()
            assert "answer" not in str(exam["questions"])
            for q in exam["questions"]:
                r = http.post(
                    f"/exams/{exam['id']}/answers",
                    json={"question_id": q["id"], "answer": 1},
                    headers=h,
                )
                assert r.status_code == 200, r.text
            result = http.post(f"/exams/{exam['id']}/close", headers=h).json()
            assert result["answered"] == 5 and result["total"] == 5
            assert http.get("/progress", headers=h).json()["answers"] == 5
            assert http.get("/progress").status_code == 401
