"""Judge training that remembers, in the terminal: `trainee` (a token), `quiz --token` (a
practice set from the scheduler, graded at once: `practice` below), `exam` (keys only after the close),
`progress`, `history export|import` and `db migrate|backup`. Each is the route of the same name
(docs/training.md) over `RulingsService.training`; `--json` prints the route's JSON.

The helpers of the main CLI are imported when a command runs, so this module and api/cli.py can
import each other in any order.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

DataOpt = Annotated[Path | None, typer.Option("--data", help="Data directory (YGO_DATA_DIR).")]
CorpusOpt = Annotated[
    Path | None, typer.Option("--corpus", help="Corpus directory (YGO_CORPUS_DIR).")
]
TokenOpt = Annotated[
    str, typer.Option("--token", help="The trainee's token (`ygo-rulings trainee` issues one).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
FormatOpt = Annotated[
    str | None, typer.Option("--format", help="A format id declared in the manifest")
]
TopicOpt = Annotated[
    list[str] | None, typer.Option("--topic", help="A topic (repeat for several); none: all")
]
NOpt = Annotated[int, typer.Option("--n", help="Number of questions (1..50).")]
LangOpt = Annotated[
    str,
    typer.Option(
        "--lang", help="pt (default) or en: the language of the questions and explanations."
    ),
]

history_app = typer.Typer(no_args_is_help=True, help="A trainee's history as JSON.")
db_app = typer.Typer(no_args_is_help=True, help="The judge-training database.")


def _read_line(prompt: str) -> str | None:
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    return line if line else None


def _write(text: str) -> None:
    from api import cli as base

    base.out.print(text, highlight=False, markup=False, soft_wrap=True)


def _ask(
    question: dict[str, Any],
    number: int,
    total: int,
    submit: Callable[[str], Any],
    lang: str = "pt",
) -> Any | None:
    """Show a question, read answers until one is usable; None at end of input."""
    from api.terminal_quiz import WORDS, show_question
    from kb.errors import InvalidQuery

    _write(show_question(question, number, total, lang))
    keys = "/".join(o["key"] for o in question["options"])
    while True:
        line = _read_line(WORDS[lang]["answer"].format(keys=keys))
        if line is None:
            return None
        if not line.strip():
            continue
        try:
            return submit(line.strip())
        except InvalidQuery as exc:
            _write(f"  {exc.reason}")


def trainee(
    name: Annotated[str | None, typer.Option("--name", help="A display name (optional).")] = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
) -> None:
    """A new trainee and their token, as JSON (POST /trainees): keep the token."""
    from api import cli as base
    from kb.training.schemas import NewTrainee

    s = base.settings(data, corpus)
    svc = base.guarded(lambda: base.service(s))
    base.emit(
        base.guarded(lambda: svc.training.create_trainee(NewTrainee(name=name))).model_dump(
            mode="json"
        )
    )


def practice(
    token: TokenOpt,
    fmt: FormatOpt = None,
    topic: TopicOpt = None,
    n: NOpt = 10,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    lang: str = "pt",
) -> None:
    """Practice with progress kept (POST /practice, then each answer graded at once), in `lang`."""
    from api import cli as base
    from api.terminal_quiz import WORDS, show_result
    from kb.training.schemas import AnswerRequest, PracticeRequest

    s = base.settings(data, corpus)
    training = base.guarded(lambda: base.service(s)).training
    request = base.guarded(lambda: PracticeRequest(format=fmt, topics=topic or [], n=n))
    session = base.guarded(lambda: training.start_practice(token, request, lang))
    right = answered = 0
    questions = [q.model_dump() for q in session.questions]
    for i, q in enumerate(questions, 1):

        def submit(line: str, qid: str = q["id"]) -> Any:
            return training.answer_practice(
                token, session.id, AnswerRequest(question_id=qid, answer=line), lang
            )

        feedback = base.guarded(partial(_ask, q, i, len(questions), submit, lang))
        if feedback is None:
            break
        result = feedback.model_dump()
        _write(show_result({**result, "id": result["question_id"]}, lang))
        answered += 1
        right += result["correct"]
    _write("\n" + WORDS[lang]["practice_score"].format(right=right, total=answered, id=session.id))


def exam(
    token: TokenOpt,
    fmt: FormatOpt = None,
    topic: TopicOpt = None,
    n: NOpt = 10,
    time_limit: Annotated[
        int | None, typer.Option("--time-limit", help="Seconds (30..14400); none: untimed.")
    ] = None,
    pass_mark: Annotated[float, typer.Option("--pass-mark", help="Share to pass (0..1).")] = 0.75,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    as_json: JsonOpt = False,
    lang: LangOpt = "pt",
) -> None:
    """An exam (POST /exams): answers recorded without keys, then closed and graded by topic,
    each missed question explained (POST /exams/{id}/close); --lang en asks in English."""
    from api import cli as base
    from api.terminal_quiz import WORDS
    from kb.errors import Conflict, KBError
    from kb.presentation.quiz_model import check_lang
    from kb.training.schemas import AnswerRequest, ExamRequest

    base.guarded(lambda: check_lang(lang))
    words = WORDS[lang]
    s = base.settings(data, corpus)
    training = base.guarded(lambda: base.service(s)).training
    request = base.guarded(
        lambda: ExamRequest(
            format=fmt, topics=topic or [], n=n, time_limit=time_limit, pass_mark=pass_mark
        )
    )
    session = base.guarded(lambda: training.start_exam(token, request, lang))
    questions = [q.model_dump() for q in session.questions]
    if session.deadline is not None:
        _write(words["deadline"].format(deadline=session.deadline.isoformat()))
    for i, q in enumerate(questions, 1):

        def submit(line: str, qid: str = q["id"]) -> Any:
            return training.answer_exam(
                token, session.id, AnswerRequest(question_id=qid, answer=line)
            )

        try:
            ack = _ask(q, i, len(questions), submit, lang)
        except Conflict as exc:  # the time limit passed
            _write(f"  {exc}")
            break
        except KBError as exc:
            base.fail(str(exc))
        if ack is None:
            break
    result = base.guarded(
        lambda: (
            training.exam_result(token, session.id, lang)
            if training.session(token, session.id).closed
            else training.close_exam(token, session.id, lang)
        )
    )
    if as_json:
        base.emit(result.model_dump(mode="json"))
        return
    score = words["exam_score"].format(
        verdict=words["passed"] if result.passed else words["failed"],
        right=result.correct,
        total=result.total,
        score=f"{result.score:.0%}",
        mark=f"{result.pass_mark:.0%}",
    )
    _write(f"\n{score}{words['timed_out'] if result.timed_out else ''}")
    for t in result.by_topic:
        _write(f"  {t.topic}: {t.correct}/{t.total}")
    for m in result.missed:
        given = m.given or words["unanswered"]
        _write(
            f"✗ {m.question_id}: {given} → {m.expected}) {m.expected_text}\n  {m.explanation}\n"
            f"  {words['source']}: {m.citation.id} «{m.citation.text}»"
        )


def progress(
    token: TokenOpt,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    as_json: JsonOpt = False,
    lang: LangOpt = "pt",
) -> None:
    """Answers, what is due and mastery by topic and format (GET /progress); --lang en
    writes it in English."""
    from api import cli as base
    from api.terminal_quiz import WORDS
    from kb.presentation.quiz_model import check_lang

    base.guarded(lambda: check_lang(lang))
    words = WORDS[lang]
    s = base.settings(data, corpus)
    training = base.guarded(lambda: base.service(s)).training
    result = base.guarded(lambda: training.progress(token))
    if as_json:
        base.emit(result.model_dump(mode="json"))
        return
    _write(words["progress"].format(right=result.correct, answers=result.answers, due=result.due))
    for title, rows in (("by_topic", result.by_topic), ("by_format", result.by_format)):
        for m in rows:
            line = words["mastery"].format(
                key=m.key, right=m.correct, answers=m.answers, mastery=f"{m.mastery:.0%}"
            )
            _write(f"  {words[title]} {line}")


@history_app.command("export")
def history_export(
    token: TokenOpt,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write here, not stdout.")] = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
) -> None:
    """The trainee's history as JSON (GET /history)."""
    from api import cli as base

    s = base.settings(data, corpus)
    training = base.guarded(lambda: base.service(s)).training
    history = base.guarded(lambda: training.export_history(token)).model_dump(mode="json")
    if out_file is None:
        base.emit(history)
        return
    out_file.write_text(json.dumps(history, ensure_ascii=False, indent=2) + "\n", "utf-8")
    base.err.print(f"wrote {out_file} ({len(history['answers'])} answers)")


@history_app.command("import")
def history_import(
    file: Annotated[
        Path, typer.Argument(help="A history JSON file (history export); - reads stdin")
    ],
    token: TokenOpt,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
) -> None:
    """Add an exported history to the trainee (POST /history), all or nothing."""
    from pydantic import ValidationError

    from api import cli as base
    from kb.training.schemas import History

    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text("utf-8")
        history = History.model_validate_json(text)
    except OSError as exc:
        base.fail(f"file: cannot read {file}: {exc.strerror}", 2)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(x) for x in e['loc']) or 'history'}: {e['msg']}"
            for e in exc.errors()[:5]
        ]
        base.fail("; ".join(problems), 2)
    s = base.settings(data, corpus)
    training = base.guarded(lambda: base.service(s)).training
    base.emit(base.guarded(lambda: training.import_history(token, history)).model_dump())


def _database(data: Path | None) -> Any:
    from api import cli as base
    from kb.training.database import Database, database_url

    s = base.settings(data)
    return Database(database_url(s.database_url, s.data_dir))


@db_app.command("migrate")
def db_migrate(data: DataOpt = None) -> None:
    """Create or upgrade the training database's tables (in one transaction)."""
    from api import cli as base

    db = _database(data)
    revision = base.guarded(db.migrate)
    base.out.print(f"{db.describe()}: at revision {revision}", highlight=False, soft_wrap=True)


@db_app.command("backup")
def db_backup(
    target: Annotated[Path, typer.Argument(help="A new file for the copy")],
    data: DataOpt = None,
) -> None:
    """A consistent copy of the SQLite training database, safe while the server runs."""
    from api import cli as base

    db = _database(data)
    copy = base.guarded(lambda: db.backup(target))
    base.out.print(f"wrote {copy} ({copy.stat().st_size} bytes)", highlight=False, soft_wrap=True)


def migrate_on_start(s: Any) -> None:
    """`serve`: bring the training database to the current revision before serving (each
    server process then finds it ready); a database that cannot be used is a warning, not a
    refusal to serve: the training routes answer 503 until it can be used."""
    from api import cli as base
    from kb.errors import DatabaseUnavailable
    from kb.training.database import Database, database_url

    db = Database(database_url(s.database_url, s.data_dir))
    try:
        db.migrate()
    except DatabaseUnavailable as exc:
        base.err.print(
            f"[yellow]Warning:[/yellow] {exc}; the training routes answer 503 until it can be used",
            highlight=False,
            soft_wrap=True,
        )
    finally:
        db.dispose()  # no connection crosses into the worker processes


def migrate_aside(s: Any) -> Callable[[], None]:
    """`migrate_on_start` in a forked child, so that `serve` loads the KB meanwhile (the child's
    imports and the migration take ~0.3 s of the other core). The function returned waits for it:
    call it before serving. A migration that fails on something other than an unusable database
    stops the start there, as it would have inline. Where there is no fork, it migrates now."""
    from api import cli as base
    from api.forked import in_child

    if not hasattr(os, "fork"):
        migrate_on_start(s)
        return lambda: None
    pid = in_child(lambda: migrate_on_start(s))

    def wait() -> None:
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            base.fail("the training database could not be migrated (see above)", 1)

    return wait


def register(app: typer.Typer) -> None:
    """Add the training commands to the main app."""
    app.command("trainee")(trainee)
    app.command("exam")(exam)
    app.command("progress")(progress)
    app.add_typer(history_app, name="history")
    app.add_typer(db_app, name="db")
