"""The interactive judge-training quiz in a terminal: ask, read an answer, grade, explain, score.

Kept apart from `api.cli` so the loop is testable with plain callables: `read` returns a line
(None at end of input), `write` prints text, `grade` is `RulingsService.quiz_check`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kb.errors import InvalidQuery

Grade = Callable[[list[dict[str, Any]]], dict[str, Any]]


def show_question(q: dict[str, Any], number: int, total: int) -> str:
    """A question as terminal text (without its answer key)."""
    lines = [f"\n[{number}/{total}] {q['prompt']}"]
    if q.get("context"):
        lines.append(f"  Contexto: {q['context']}")
    if q.get("statement"):
        lines.append(f"  «{q['statement']}»")
    lines += [f"  {o['key']}) {o['text']}" for o in q["options"]]
    return "\n".join(lines)


def show_result(result: dict[str, Any]) -> str:
    """Right or wrong, the expected answer, the explanation and the exact citation."""
    c = result["citation"]
    head = (
        "✓ Correto."
        if result["correct"]
        else f"✗ Errado. Resposta: {result['expected']}) {result['expected_text']}"
    )
    return (
        f"{head}\n  {result['explanation']}\n"
        f"  Fonte: {c['id']} [{c['document']}:{c['start']}-{c['end']}] «{c['text']}»"
    )


def run_quiz(
    quiz: dict[str, Any],
    grade: Grade,
    read: Callable[[str], str | None],
    write: Callable[[str], None],
) -> dict[str, Any]:
    """Ask every question, grading each answer at once; stops early at end of input."""
    questions = quiz["questions"]
    results: list[dict[str, Any]] = []
    if not questions:
        write("Nenhuma pergunta para este formato e tema.")
    for i, q in enumerate(questions, 1):
        write(show_question(q, i, len(questions)))
        result = _answer(q, grade, read, write)
        if result is None:
            break
        results.append(result)
        write(show_result(result))
    right = sum(1 for r in results if r["correct"])
    write(f"\nPontuação: {right}/{len(results)} (seed {quiz['seed']})")
    return {"answered": len(results), "correct": right, "results": results}


def _answer(
    q: dict[str, Any], grade: Grade, read: Callable[[str], str | None], write: Callable[[str], None]
) -> dict[str, Any] | None:
    """The graded answer, asking again after an unusable one; None at end of input."""
    keys = "/".join(o["key"] for o in q["options"])
    while True:
        line = read(f"Resposta ({keys}): ")
        if line is None:
            return None
        if not line.strip():
            continue
        try:
            return grade([{"id": q["id"], "answer": line.strip()}])["results"][0]
        except InvalidQuery as exc:
            write(f"  {exc.reason}")
