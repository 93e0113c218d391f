"""The page's training view (`/?view=training`) in Debian's Chromium at 1280 and 390 px.

The real `ygo-rulings serve` and Chromium as in tests/test_web_browser.py (its module-scoped
fixtures, imported here, so this module starts one server of its own). Each test forgets the
token the browser profile may hold and creates a fresh trainee through the page.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect
from test_web_browser import (  # type: ignore[import-not-found]
    browser,
    no_horizontal_scroll,
    page,
    server,
)

pytestmark = pytest.mark.e2e

__all__ = ["browser", "page", "server"]  # fixtures used by name
WIDTHS = [1280, 390]
TRAINING_PATHS = re.compile(r"/(practice|exams|progress|trainees)\b")
# Fields that carry a key or an explanation: none may reach the page before its answer is in.
# (`correct` is not one: /progress counts right answers, and an open exam's answers count nowhere.)
KEY_FIELDS = ("answer", "expected", "expected_text", "explanation", "citation", "missed")


def fresh_trainee(page: Any, server: str, width: int, name: str) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(server + "/?view=training")
    page.evaluate("() => window.localStorage.removeItem('ygo-rulings.trainee')")
    page.reload()
    expect(page.locator("#training-name")).to_be_visible()
    assert "localStorage" in page.locator("#training-account").text_content()
    page.fill("#training-name", name)
    page.click("#training-new button[type=submit]")
    expect(page.locator("#training-forget")).to_be_visible()
    assert name in page.locator("#training-account").text_content()
    expect(page.locator("#training-topics option").first).to_be_attached()
    stored = page.evaluate("() => window.localStorage.getItem('ygo-rulings.trainee')")
    assert json.loads(stored)["token"]


def keys_of(body: Any) -> set[str]:
    """Every key of a JSON document, at any depth."""
    if isinstance(body, dict):
        return set(body) | {k for v in body.values() for k in keys_of(v)}
    if isinstance(body, list):
        return {k for v in body for k in keys_of(v)}
    return set()


@pytest.mark.parametrize("width", WIDTHS)
def test_practice_answers_a_question_then_shows_its_key_and_progress(
    server: str, page: Any, width: int
) -> None:
    fresh_trainee(page, server, width, "Ana")
    page.select_option("#training-format", "edison")
    page.fill("#training-n", "2")
    with page.expect_response(re.compile(r"/practice\?lang=pt$")) as started:
        page.click("#training-setup button[value=practice]")
    session = started.value.json()
    assert not keys_of(session) & set(KEY_FIELDS), keys_of(session)
    question = page.locator(".training-question")
    expect(question).to_be_visible()
    first = session["questions"][0]
    assert question.get_attribute("data-qid") == first["id"]
    assert page.locator(".training-feedback").count() == 0  # no key before the answer
    no_horizontal_scroll(page, width, "practice question")
    question.locator("input[type=radio]").first.check()
    with page.expect_response(re.compile(r"/practice/[^/]+/answers\?lang=pt$")) as answering:
        question.locator("button[type=submit]").click()
    reply = answering.value.json()
    feedback = page.locator(".training-feedback")
    expect(feedback).to_be_visible()
    expect(feedback).to_be_focused()  # a keyboard user lands on the feedback
    assert feedback.locator(".expected").text_content() == reply["expected_text"]
    warned = feedback.locator(".machine-translated").count()
    assert warned == (1 if reply["machine_translated"] else 0)
    assert feedback.get_attribute("data-correct") in ("true", "false")
    assert feedback.locator(".expected").text_content().strip()
    assert feedback.locator(".explanation").text_content().strip()
    link = feedback.locator("a.cite-link")
    assert re.search(r"^/doc/[^#]+#s=\d+-\d+", link.get_attribute("href"))
    assert "/" not in link.text_content()  # named by section and document, not by an id
    expect(page.locator("#training-next")).to_be_visible()
    no_horizontal_scroll(page, width, "practice feedback")
    # The progress chart shows a bar for each topic of the answered question.
    for topic in first["topics"]:
        row = page.locator(f"#training-chart li[data-topic='{topic}']")
        expect(row.locator("svg rect")).to_have_count(2)  # the track and the bar
        accuracy = float(row.get_attribute("data-value"))
        bar = float(row.locator("rect.bar-fill").get_attribute("width"))
        assert bar == pytest.approx(accuracy * 100, abs=0.1)
        assert accuracy == (1.0 if feedback.get_attribute("data-correct") == "true" else 0.0)
    assert "1" in page.locator("#training-totals").text_content()
    no_horizontal_scroll(page, width, "progress chart")
    # The cited span opens in its document.
    text = link.get_attribute("href")
    page.goto(server + text)
    expect(page.locator("#hl")).to_be_visible()


@pytest.mark.parametrize("width", WIDTHS)
def test_an_exam_shows_no_key_before_its_close_then_the_result_by_topic(
    server: str, page: Any, width: int
) -> None:
    fresh_trainee(page, server, width, "Bruno")
    seen: list[Any] = []
    page.on("response", lambda r: seen.append(r) if TRAINING_PATHS.search(r.url) else None)
    page.fill("#training-n", "3")
    page.fill("#training-minutes", "10")
    page.fill("#training-pass", "60")
    page.click("#training-setup button[value=exam]")
    timer = page.locator("#training-timer")
    expect(timer).to_have_text(re.compile(r"\b(9|10):\d\d\b"))
    answered = 0
    while page.locator(".training-question").count():
        question = page.locator(".training-question")
        question.locator("input[type=radio]").last.check()
        question.locator("button[type=submit]").click()
        answered += 1
        expect(page.locator("#training-count")).to_have_text(re.compile(rf"^{answered}\b"))
        assert page.locator(".training-feedback, .expected, .explanation").count() == 0
    assert answered == 3
    no_horizontal_scroll(page, width, "exam")
    # Nothing the page received before the close carries a key, an explanation or a citation.
    before = [r for r in seen if r.request.method != "OPTIONS"]
    assert any("/exams" in r.url for r in before)
    for response in before:
        body = response.json()
        assert not keys_of(body) & set(KEY_FIELDS), (response.url, keys_of(body))
    with page.expect_response(re.compile(r"/close\?lang=pt$")) as closing:
        page.click("#training-close")
    result = closing.value.json()
    expect(page.locator("#training-result")).to_be_visible()
    assert timer.count() == 0  # the countdown ends with the exam
    chart = page.locator("#training-result-chart > li")
    expect(chart).to_have_count(len(result["by_topic"]))
    assert {chart.nth(i).get_attribute("data-topic") for i in range(chart.count())} == {
        t["topic"] for t in result["by_topic"]
    }
    score = page.locator("#training-result .score")
    assert score.get_attribute("data-score") == str(result["correct"])
    missed = page.locator(".training-missed > li")
    assert missed.count() == len(result["missed"])
    for i, item in enumerate(result["missed"]):
        shown = missed.nth(i)
        assert shown.locator(".expected").text_content() == item["expected_text"]
        assert shown.locator(".explanation").text_content() == item["explanation"]
        cite = item["citation"]
        href = f"/doc/{cite['document']}#s={cite['start']}-{cite['end']}"
        assert shown.locator("a.cite-link").get_attribute("href").startswith(href)
        for response in before:  # no missed explanation reached the page before the close
            assert item["explanation"] not in response.text()
    no_horizontal_scroll(page, width, "exam result")


def test_forgetting_the_token_asks_for_a_new_trainee(server: str, page: Any) -> None:
    fresh_trainee(page, server, 1280, "Caio")
    page.click("#training-forget")
    expect(page.locator("#training-name")).to_be_visible()
    assert page.evaluate("() => window.localStorage.getItem('ygo-rulings.trainee')") is None
    page.click("#lang-toggle")
    expect(page.locator("#training-title")).to_have_text("Judge training")
    assert "localStorage" in page.locator("#training-account").text_content()
    page.click("#lang-toggle")  # back to Portuguese for the other tests


@pytest.mark.parametrize("width", WIDTHS)
def test_refusals_are_worded_from_the_envelope(server: str, page: Any, width: int) -> None:
    """A format and topic with no questions (422) and an unknown token (401, with a way out)."""
    fresh_trainee(page, server, width, "Dora")
    with page.expect_response(re.compile(r"/quiz/topics\?format=tag$")) as listed:
        page.select_option("#training-format", "tag")
    offered = [t["id"] for t in listed.value.json()["topics"]]
    options = page.locator("#training-topics option")
    expect(options).to_have_count(len(offered))  # only the topics with questions in Tag Duel
    assert [options.nth(i).get_attribute("value") for i in range(len(offered))] == offered
    assert "edison-rule-05" not in offered
    # A list gone stale (the KB was rebuilt since it was filled): the server's refusal is worded.
    page.evaluate(
        "() => document.getElementById('training-topics').append("
        "new Option('stale', 'edison-rule-05', true, true))"
    )
    page.click("#training-setup button[value=practice]")
    refused = page.locator("#training-status .error")
    expect(refused).to_be_visible()
    assert refused.get_attribute("data-status") == "422"
    assert refused.get_attribute("data-code") == "invalid"
    assert "tema" in refused.locator(".error-message").text_content()  # the field, in Portuguese
    # The server's own sentence names what is available.
    assert "tag-basic-rules" in refused.locator(".error-detail").text_content()
    no_horizontal_scroll(page, width, "refusal")
    page.evaluate(
        "() => window.localStorage.setItem('ygo-rulings.trainee',"
        " JSON.stringify({token: 'not-a-token', name: 'X', expires: '2030-01-01'}))"
    )
    page.reload()
    unknown = page.locator("#training-progress-body .error")
    expect(unknown).to_have_attribute("data-code", "unauthorized")
    assert unknown.locator(".error-message").text_content().strip()
    page.locator("#training-progress-body .forget-token").click()
    expect(page.locator("#training-name")).to_be_visible()


def test_the_server_closes_an_exam_when_its_countdown_ends(server: str, page: Any) -> None:
    """The shortest time limit the server takes (30 s): the page's countdown reaches zero, and
    the result it then shows is the server's, closed by the time limit."""
    fresh_trainee(page, server, 390, "Eva")
    page.fill("#training-n", "2")
    page.fill("#training-minutes", "0.5")
    page.click("#training-setup button[value=exam]")
    timer = page.locator("#training-timer")
    expect(timer).to_have_text(re.compile(r"\b0:(30|29|28)\b"))
    result = page.locator("#training-result")
    expect(result).to_be_visible(timeout=60_000)
    assert "tempo limite" in result.text_content()  # closed by its time limit
    assert page.locator(".training-missed > li").count() == 2  # unanswered: missed, explained


def test_a_reload_picks_the_open_exam_up_again(server: str, page: Any) -> None:
    fresh_trainee(page, server, 1280, "Fábio")
    page.fill("#training-n", "2")
    page.fill("#training-minutes", "10")
    with page.expect_response(re.compile(r"/exams\?lang=pt$")) as started:
        page.click("#training-setup button[value=exam]")
    second = started.value.json()["questions"][1]["id"]
    page.locator(".training-question input[type=radio]").first.check()
    page.locator(".training-question button[type=submit]").click()
    expect(page.locator("#training-count")).to_have_text(re.compile(r"^1\b"))
    page.reload()
    expect(page.locator("#training-count")).to_have_text(re.compile(r"^1\b"))
    expect(page.locator("#training-timer")).to_have_text(re.compile(r"\b(9|10):\d\d\b"))
    assert page.locator(".training-question").get_attribute("data-qid") == second
    assert page.locator(".training-feedback").count() == 0


# --- the page language: English questions, switched with the page -----------------------------
def to_english(page: Any) -> None:
    page.click("#lang-toggle")
    expect(page.locator("#training-title")).to_have_text("Judge training")


def to_portuguese(page: Any) -> None:
    page.click("#lang-toggle")
    expect(page.locator("html")).to_have_attribute("lang", "pt-BR")


@pytest.mark.parametrize("width", WIDTHS)
def test_practice_asks_in_the_page_language_and_switches_with_it(
    server: str, page: Any, width: int
) -> None:
    fresh_trainee(page, server, width, "Gil")
    to_english(page)
    # The topics are the server's list, named in English with their question counts.
    topics = page.request.get(server + "/quiz/topics").json()["topics"]
    first = page.locator("#training-topics option").first
    expect(first).to_have_text(f"{topics[0]['label_en']} ({topics[0]['questions']})")
    page.select_option("#training-format", "edison")
    page.fill("#training-n", "2")
    with page.expect_response(re.compile(r"/practice\?lang=en$")) as started:
        page.click("#training-setup button[value=practice]")
    english = started.value.json()
    question = page.locator(".training-question")
    expect(question).to_have_attribute("data-lang", "en")
    assert question.locator(".prompt").text_content() == english["questions"][0]["prompt"]
    assert question.locator(".prompt").get_attribute("lang") == "en"
    # Switching the page to Portuguese asks for the same session in Portuguese.
    with page.expect_response(re.compile(r"/practice/[^/?]+\?lang=pt$")) as again:
        to_portuguese(page)
    portuguese = again.value.json()
    assert [q["id"] for q in portuguese["questions"]] == [q["id"] for q in english["questions"]]
    expect(question).to_have_attribute("data-lang", "pt")
    assert question.locator(".prompt").text_content() == portuguese["questions"][0]["prompt"]
    assert portuguese["questions"][0]["prompt"] != english["questions"][0]["prompt"]
    no_horizontal_scroll(page, width, "practice in Portuguese")
    # ... and answers it in English once the page is English again.
    to_english(page)
    expect(question).to_have_attribute("data-lang", "en")
    question.locator("input[type=radio]").first.check()
    with page.expect_response(re.compile(r"/practice/[^/]+/answers\?lang=en$")) as answering:
        question.locator("button[type=submit]").click()
    reply = answering.value.json()
    feedback = page.locator(".training-feedback")
    expect(feedback).to_be_visible()
    assert feedback.get_attribute("data-lang") == "en"
    assert feedback.locator(".explanation").text_content() == reply["explanation"]
    assert feedback.locator(".expected").text_content() == reply["expected_text"]
    no_horizontal_scroll(page, width, "English feedback")
    to_portuguese(page)  # the other tests expect a Portuguese page


@pytest.mark.parametrize("width", WIDTHS)
def test_an_exam_result_comes_in_the_page_language_and_switches_with_it(
    server: str, page: Any, width: int
) -> None:
    fresh_trainee(page, server, width, "Hana")
    to_english(page)
    page.fill("#training-n", "2")
    with page.expect_response(re.compile(r"/exams\?lang=en$")):
        page.click("#training-setup button[value=exam]")
    expect(page.locator(".training-question")).to_have_attribute("data-lang", "en")
    with page.expect_response(re.compile(r"/close\?lang=en$")) as closing:
        page.click("#training-close")  # nothing answered: both missed, explained
    english = closing.value.json()
    missed = page.locator(".training-missed > li")
    expect(missed).to_have_count(2)
    shown = missed.locator(".explanation").all_text_contents()
    assert shown == [m["explanation"] for m in english["missed"]]
    with page.expect_response(re.compile(r"/exams/[^/]+/result\?lang=pt$")) as again:
        to_portuguese(page)
    portuguese = again.value.json()
    expect(page.locator("#training-result")).to_be_visible()
    expect(missed.first.locator(".explanation")).to_have_text(
        portuguese["missed"][0]["explanation"]
    )
    assert [m["question_id"] for m in portuguese["missed"]] == [
        m["question_id"] for m in english["missed"]
    ]
    assert portuguese["missed"][0]["explanation"] != english["missed"][0]["explanation"]
    no_horizontal_scroll(page, width, "exam result in Portuguese")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_quiz_view_asks_and_explains_in_the_page_language(
    server: str, page: Any, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(server + "/?view=quiz")
    page.evaluate("() => window.localStorage.setItem('ygo-rulings.lang', 'en')")
    with page.expect_response(re.compile(r"/quiz\?.*lang=en")) as asked:
        page.goto(server + "/?view=quiz&seed=3&topic=summon")
    english = asked.value.json()
    fieldsets = page.locator("#quiz-questions fieldset")
    expect(fieldsets).to_have_count(len(english["questions"]))
    for i, q in enumerate(english["questions"]):
        assert fieldsets.nth(i).locator(".prompt").text_content() == q["prompt"]
        assert fieldsets.nth(i).get_attribute("data-lang") == "en"
    # The topic list is the server's, in English, with the chosen topic kept.
    topic = page.locator("#quiz-topic option[value=summon]")
    expect(topic).to_have_text(re.compile(r"^Summons \(\d+\)$"))
    assert page.locator("#quiz-topic").input_value() == "summon"
    for q in english["questions"]:
        page.check(f"#quiz-questions fieldset[data-qid='{q['id']}'] input[value='{q['answer']}']")
    with page.expect_response(re.compile(r"/quiz/check\?lang=en$")) as checking:
        page.click("#quiz-form button[type=submit]")
    graded = checking.value.json()
    expect(page.locator(".score")).to_have_attribute("data-score", str(len(english["questions"])))
    explanations = page.locator(".quiz-results .explanation")
    assert explanations.all_text_contents() == [r["explanation"] for r in graded["results"]]
    no_horizontal_scroll(page, width, "English quiz result")
    # To Portuguese: the same questions, the answers kept, graded again in Portuguese.
    with page.expect_response(re.compile(r"/quiz/check\?lang=pt$")) as regraded:
        page.click("#lang-toggle")
    portuguese = regraded.value.json()
    assert [r["id"] for r in portuguese["results"]] == [r["id"] for r in graded["results"]]
    expect(explanations.first).to_have_text(portuguese["results"][0]["explanation"])
    assert portuguese["results"][0]["explanation"] != graded["results"][0]["explanation"]
    expect(page.locator(".score")).to_have_attribute("data-score", str(len(english["questions"])))
    for q in english["questions"]:
        chosen = page.locator(f"#quiz-questions fieldset[data-qid='{q['id']}'] input:checked")
        assert chosen.get_attribute("value") == q["answer"]
    assert page.locator("#quiz-questions fieldset").first.get_attribute("data-lang") == "pt"


# --- the history as a file ---------------------------------------------------------------------
def answer_one_practice_question(page: Any) -> None:
    page.fill("#training-n", "1")
    page.click("#training-setup button[value=practice]")
    question = page.locator(".training-question")
    question.locator("input[type=radio]").first.check()
    question.locator("button[type=submit]").click()
    expect(page.locator(".training-feedback")).to_be_visible()
    expect(page.locator("#training-totals")).to_have_text(re.compile(r"^1 "))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_history_downloads_and_imports_into_another_trainee(
    server: str, page: Any, width: int, tmp_path: Any
) -> None:
    fresh_trainee(page, server, width, "Íris")
    answer_one_practice_question(page)
    expect(page.locator("#training-export")).to_be_visible()
    no_horizontal_scroll(page, width, "history box")
    with page.expect_download() as downloading:
        page.click("#training-export")
    download = downloading.value
    assert re.fullmatch(
        r"ygo-rulings-history-iris-\d{4}-\d{2}-\d{2}\.json", download.suggested_filename
    )
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    history = json.loads(saved.read_text("utf-8"))
    token = json.loads(page.evaluate("() => window.localStorage.getItem('ygo-rulings.trainee')"))
    served = page.request.get(
        server + "/history", headers={"authorization": "Bearer " + token["token"]}
    )
    assert history == served.json() and len(history["answers"]) == 1
    expect(page.locator("#training-history-done")).to_contain_text("1 resposta")
    # Another trainee imports it: the answer and its review state become theirs.
    page.click("#training-forget")
    page.fill("#training-name", "Íris 2")
    page.click("#training-new button[type=submit]")
    expect(page.locator("#training-totals")).to_have_text(re.compile(r"^0 "))  # the new trainee's
    with page.expect_response(re.compile(r"/history$")) as importing:
        page.set_input_files("#training-import", str(saved))
    assert importing.value.json() == {"answers": 1, "skipped": 0, "reviews": 1}
    expect(page.locator("#training-history-done")).to_have_text(
        "Histórico importado: 1 resposta(s) nova(s), 0 já registrada(s), "
        "1 estado(s) de revisão novo(s)."
    )
    expect(page.locator("#training-totals")).to_have_text(re.compile(r"^1 "))
    page.set_input_files("#training-import", str(saved))  # again: already recorded
    expect(page.locator("#training-history-done")).to_contain_text("1 já registrada")
    no_horizontal_scroll(page, width, "history imported")


BAD_FILES = {
    # name: (contents, what the page says, the server's status or None when nothing is sent)
    "notes.txt": (b"not json at all", "não é JSON válido", None),
    "list.json": (b"[1, 2]", "não é um histórico", None),
    "broken.json": (
        b'{"answers": [{"question_id": 1}], "reviews": []}',
        "O problema está em «answers.0.question_id».",
        422,
    ),
    "future.json": (b'{"version": 2, "answers": [], "reviews": []}', "«version»", 422),
}


@pytest.mark.parametrize("width", WIDTHS)
def test_a_bad_history_file_is_explained_and_nothing_is_written(
    server: str, page: Any, width: int
) -> None:
    fresh_trainee(page, server, width, "Jade")
    sent: list[Any] = []
    page.on("request", lambda r: sent.append(r) if r.url.endswith("/history") else None)
    for name, (contents, says, status) in BAD_FILES.items():
        sent.clear()
        page.set_input_files(
            "#training-import", {"name": name, "mimeType": "application/json", "buffer": contents}
        )
        problem = page.locator("#training-history-status .history-problem")
        expect(problem).to_contain_text(name)
        expect(problem).to_contain_text(says)
        if status is None:
            assert not sent, name  # refused before anything is sent
        else:
            refusal = page.locator("#training-history-status .error[data-status]")
            expect(refusal).to_have_attribute("data-status", str(status))
            assert refusal.locator(".error-message").text_content().strip()
        no_horizontal_scroll(page, width, f"bad history {name}")
    expect(page.locator("#training-totals")).to_have_text(re.compile(r"^0 "))  # nothing written
