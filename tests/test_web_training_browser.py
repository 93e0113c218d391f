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
    with page.expect_response(re.compile(r"/practice$")) as started:
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
    with page.expect_response(re.compile(r"/practice/[^/]+/answers$")) as answering:
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
    with page.expect_response(re.compile(r"/close$")) as closing:
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
    page.select_option("#training-format", "tag")
    page.select_option("#training-topics", ["edison-rule-05"])
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
    with page.expect_response(re.compile(r"/exams$")) as started:
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
