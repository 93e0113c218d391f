"""The interactive judge-training quiz in a terminal: ask, read an answer, grade, explain, score.

Kept apart from `api.cli` so the loop is testable with plain callables: `read` returns a line
(None at end of input), `write` prints text, `grade` is `RulingsService.quiz_check`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kb.errors import InvalidQuery

Grade = Callable[[list[dict[str, Any]]], dict[str, Any]]

# The terminal's own words in each language (the questions come in the quiz's `lang`).
WORDS: dict[str, dict[str, str]] = {
    "pt": {
        "context": "Contexto",
        "right": "✓ Correto.",
        "wrong": "✗ Errado. Resposta: {key}) {text}",
        "source": "Fonte",
        "none": "Nenhuma pergunta para este formato e tema.",
        "score": "Pontuação: {right}/{total} (seed {seed})",
        "answer": "Resposta ({keys}): ",
        "practice_score": "Pontuação: {right}/{total} (sessão {id}; progresso guardado)",
        "deadline": "Prazo: {deadline} (o servidor encerra a prova)",
        "passed": "Aprovado",
        "failed": "Reprovado",
        "exam_score": "{verdict}: {right}/{total} ({score}; mínimo {mark})",
        "timed_out": " — tempo esgotado",
        "unanswered": "sem resposta",
        "progress": "{right}/{answers} certas; {due} para rever agora",
        "by_topic": "tema",
        "by_format": "formato",
        "mastery": "{key}: {right}/{answers}, domínio {mastery}",
    },
    "en": {
        "context": "Context",
        "right": "✓ Right.",
        "wrong": "✗ Wrong. Answer: {key}) {text}",
        "source": "Source",
        "none": "No questions for this format and topic.",
        "score": "Score: {right}/{total} (seed {seed})",
        "answer": "Answer ({keys}): ",
        "practice_score": "Score: {right}/{total} (session {id}; progress saved)",
        "deadline": "Deadline: {deadline} (the server closes the exam)",
        "passed": "Passed",
        "failed": "Failed",
        "exam_score": "{verdict}: {right}/{total} ({score}; pass mark {mark})",
        "timed_out": " — time is up",
        "unanswered": "no answer",
        "progress": "{right}/{answers} right; {due} due for review now",
        "by_topic": "topic",
        "by_format": "format",
        "mastery": "{key}: {right}/{answers}, mastery {mastery}",
    },
}


def show_question(q: dict[str, Any], number: int, total: int, lang: str = "pt") -> str:
    """A question as terminal text (without its answer key)."""
    lines = [f"\n[{number}/{total}] {q['prompt']}"]
    if q.get("context"):
        lines.append(f"  {WORDS[lang]['context']}: {q['context']}")
    if q.get("statement"):
        lines.append(f"  «{q['statement']}»")
    lines += [f"  {o['key']}) {o['text']}" for o in q["options"]]
    return "\n".join(lines)


def show_result(result: dict[str, Any], lang: str = "pt") -> str:
    """Right or wrong, the expected answer, the explanation and the exact citation."""
    c = result["citation"]
    words = WORDS[lang]
    head = (
        words["right"]
        if result["correct"]
        else words["wrong"].format(key=result["expected"], text=result["expected_text"])
    )
    return (
        f"{head}\n  {result['explanation']}\n"
        f"  {words['source']}: {c['id']} [{c['document']}:{c['start']}-{c['end']}] «{c['text']}»"
    )


def run_quiz(
    quiz: dict[str, Any],
    grade: Grade,
    read: Callable[[str], str | None],
    write: Callable[[str], None],
    lang: str = "pt",
) -> dict[str, Any]:
    """Ask every question, grading each answer at once; stops early at end of input."""
    questions = quiz["questions"]
    results: list[dict[str, Any]] = []
    if not questions:
        write(WORDS[lang]["none"])
    for i, q in enumerate(questions, 1):
        write(show_question(q, i, len(questions), lang))
        result = _answer(q, grade, read, write, lang)
        if result is None:
            break
        results.append(result)
        write(show_result(result, lang))
    right = sum(1 for r in results if r["correct"])
    write("\n" + WORDS[lang]["score"].format(right=right, total=len(results), seed=quiz["seed"]))
    return {"answered": len(results), "correct": right, "results": results}


def _answer(
    q: dict[str, Any],
    grade: Grade,
    read: Callable[[str], str | None],
    write: Callable[[str], None],
    lang: str = "pt",
) -> dict[str, Any] | None:
    """The graded answer, asking again after an unusable one; None at end of input."""
    keys = "/".join(o["key"] for o in q["options"])
    while True:
        line = read(WORDS[lang]["answer"].format(keys=keys))
        if line is None:
            return None
        if not line.strip():
            continue
        try:
            return grade([{"id": q["id"], "answer": line.strip()}])["results"][0]
        except InvalidQuery as exc:
            write(f"  {exc.reason}")
