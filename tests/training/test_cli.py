"""The training commands through Typer's runner on a copy of the session build, the database a
SQLite file in that data directory: trainee → quiz --token → exam → progress → history export
and import → db migrate and backup."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import api.cli
from api.cli import app as cli_app
from kb.config import Settings
from kb.presentation.quiz_model import localized

ENV: dict[str, str | None] = {
    **{k: None for k in os.environ if k.startswith("YGO_")},
    "YGO_EMBEDDER": "hash",
}


@pytest.fixture(scope="module")
def kb_dir(built: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("training-cli") / "data"
    shutil.copytree(built.data_dir, target, symlinks=True)
    return target


LOADED: dict[Settings, Any] = {}  # the services the commands ran on, by their settings


@pytest.fixture(scope="module", autouse=True)
def one_service(built: Any) -> Iterator[None]:
    """The KB loaded once for the module (loading is tested elsewhere)."""
    from kb.service import RulingsService

    def service(s: Settings, *, search: bool = False) -> Any:
        if s not in LOADED:
            LOADED[s] = RulingsService(built.artifact, s)
        return LOADED[s]

    real = api.cli.service
    api.cli.service = service
    yield
    api.cli.service = real


def run(args: list[str], data: Path, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli_app, [*args, "--data", str(data)], input=stdin, env=ENV)


def test_training_from_the_terminal(kb_dir: Path, tmp_path: Path) -> None:
    made = run(["trainee", "--name", "Ana"], kb_dir)
    assert made.exit_code == 0, made.output
    token = json.loads(made.stdout)["token"]
    assert (kb_dir / "training.sqlite3").exists()

    practice = run(["quiz", "--token", token, "--n", "2", "--format", "edison"], kb_dir, "1\n1\n")
    assert practice.exit_code == 0, practice.output
    assert "[1/2]" in practice.stdout and "Fonte:" in practice.stdout
    assert "progresso guardado" in practice.stdout
    refused = run(["quiz", "--token", token, "--seed", "3"], kb_dir)
    assert refused.exit_code == 2 and "--token" in refused.stderr

    exam = run(["exam", "--token", token, "--n", "2", "--pass-mark", "0.5"], kb_dir, "1\n1\n")
    assert exam.exit_code == 0, exam.output
    assert "[2/2]" in exam.stdout and ("Aprovado" in exam.stdout or "Reprovado" in exam.stdout)
    exam_json = run(["exam", "--token", token, "--n", "1", "--json"], kb_dir, "")
    result = json.loads(exam_json.stdout[exam_json.stdout.index("{") :])
    assert result["answered"] == 0 and len(result["missed"]) == 1

    progress = json.loads(run(["progress", "--token", token, "--json"], kb_dir).stdout)
    assert progress["answers"] == 4 and progress["by_format"]
    assert "certas" in run(["progress", "--token", token], kb_dir).stdout
    english = run(["progress", "--token", token, "--lang", "en"], kb_dir).stdout
    assert "right;" in english and "mastery" in english and "certas" not in english
    bad_lang = run(["progress", "--token", token, "--lang", "xx"], kb_dir)
    assert bad_lang.exit_code == 2 and "lang" in bad_lang.stderr

    history_file = tmp_path / "history.json"
    exported = run(["history", "export", "--token", token, "--out", str(history_file)], kb_dir)
    assert exported.exit_code == 0, exported.output
    other = json.loads(run(["trainee"], kb_dir).stdout)["token"]
    imported = run(["history", "import", str(history_file), "--token", other], kb_dir)
    assert imported.exit_code == 0, imported.output
    # one review state per question answered: the exam may draw a question practice asked
    saved = json.loads(history_file.read_text("utf-8"))
    reviewed = len({a["question_id"] for a in saved["answers"]})
    assert len(saved["reviews"]) == reviewed
    assert json.loads(imported.stdout) == {"answers": 4, "skipped": 0, "reviews": reviewed}

    migrated = run(["db", "migrate"], kb_dir)
    assert migrated.exit_code == 0 and "at revision 0001" in migrated.stdout
    backup = run(["db", "backup", str(tmp_path / "copy.sqlite3")], kb_dir)
    assert backup.exit_code == 0 and (tmp_path / "copy.sqlite3").stat().st_size > 0
    again = run(["db", "backup", str(tmp_path / "copy.sqlite3")], kb_dir)
    assert again.exit_code == 2 and "exists" in again.stderr


def test_training_commands_refuse_bad_input(kb_dir: Path, tmp_path: Path) -> None:
    bad_token = run(["progress", "--token", "nope"], kb_dir)
    assert bad_token.exit_code == 1 and "unknown trainee token" in bad_token.stderr
    token = json.loads(run(["trainee"], kb_dir).stdout)["token"]
    bad_n = run(["exam", "--token", token, "--n", "0"], kb_dir)
    assert bad_n.exit_code == 2 and "n" in bad_n.stderr
    bad_file = tmp_path / "h.json"
    bad_file.write_text('{"answers": [{"question_id": 1}], "reviews": []}', "utf-8")
    refused = run(["history", "import", str(bad_file), "--token", token], kb_dir)
    assert refused.exit_code == 2 and "answers.0" in refused.stderr


def test_an_exam_in_english(kb_dir: Path) -> None:
    """`exam --lang en`: the questions, the terminal's words and the result's explanations in
    English (the same result as the route's with lang en); an unknown lang exits 2 naming it."""
    token = json.loads(run(["trainee"], kb_dir).stdout)["token"]
    args = ["exam", "--token", token, "--n", "2", "--format", "edison", "--time-limit", "600"]
    exam = run([*args, "--lang", "en"], kb_dir, "1\n")  # one answered, one left unanswered
    assert exam.exit_code == 0, exam.output
    out = exam.stdout
    assert "[1/2]" in out and "Answer (" in out and "Deadline:" in out
    assert ("Passed:" in out or "Failed:" in out) and "pass mark" in out
    assert "no answer" in out and "Source:" in out  # the unanswered question, explained
    for word in ("Resposta (", "Prazo", "Aprovado", "Reprovado", "mínimo", "sem resposta", "Fonte"):
        assert word not in out, word
    as_json = run([*args, "--json", "--lang", "en"], kb_dir, "")
    result = json.loads(as_json.stdout[as_json.stdout.index("{") :])
    bank = next(iter(LOADED.values())).question_bank  # the service the commands ran on
    for missed in result["missed"]:  # both unanswered
        english = localized(bank.by_id[missed["question_id"]], "en")
        assert missed["explanation"] == english.explanation
        assert missed["expected_text"] == english.option(missed["expected"]).text
    bad = run([*args, "--lang", "xx"], kb_dir, "")
    assert bad.exit_code == 2 and "lang" in bad.stderr


def test_serve_migrates_first_and_only_warns_when_it_cannot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from api.cli_training import migrate_on_start

    migrate_on_start(Settings(data_dir=tmp_path))
    with sqlite3.connect(tmp_path / "training.sqlite3") as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"trainees", "answers", "reviews", "alembic_version"} <= tables
    unreachable = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"
    migrate_on_start(Settings(data_dir=tmp_path, database_url=unreachable))
    assert "training routes answer 503" in capsys.readouterr().err


def test_serve_migrates_in_a_child_while_it_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The migration runs in a forked child; `serve` waits for it before serving, and stops
    there when it failed on something other than an unusable database."""
    import typer

    from api import cli_training

    wait = cli_training.migrate_aside(Settings(data_dir=tmp_path))
    wait()
    with sqlite3.connect(tmp_path / "training.sqlite3") as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"trainees", "answers", "reviews", "alembic_version"} <= tables

    def broken(s: Settings) -> None:
        raise RuntimeError("the disk caught fire")

    monkeypatch.setattr(cli_training, "migrate_on_start", broken)
    wait = cli_training.migrate_aside(Settings(data_dir=tmp_path / "other"))
    with pytest.raises(typer.Exit) as stopped:
        wait()
    assert stopped.value.exit_code == 1
