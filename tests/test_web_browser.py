"""The web page end to end: the real `ygo-rulings serve` process driven by headless Chromium.

Chromium is Debian's (`/usr/bin/chromium`, installed by .ci/run); Playwright only drives it (no
`playwright install`, no browser download). Without Chromium or Playwright these tests fail under
CI (CI=true) and are skipped elsewhere, with the install command in the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest
from tests_support import running_server  # type: ignore[import-not-found]

pytestmark = pytest.mark.e2e

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUESTION = "Julgamento Solene pode negar a Invocação do Dragão Cibernético?"
TIMEOUT_MS = 30_000


def missing(reason: str) -> None:
    """Fail in CI (a missing browser must not pass silently), skip on a developer machine."""
    hint = f"{reason}: apt-get install -y chromium chromium-driver && pip install -e '.[dev]'"
    if os.environ.get("CI"):
        pytest.fail(hint)
    pytest.skip(hint)


@pytest.fixture(scope="module")
def server(built: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`ygo-rulings serve` over a copy of the session's build."""
    # PYTHONPATH: the server runs this checkout's code (not another editable install's).
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    data = tmp_path_factory.mktemp("web-data") / "data"
    shutil.copytree(built.data_dir, data, symlinks=True)
    with running_server(data, extra_env=env, start_timeout=300) as base:
        yield base


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A fresh headless Chromium profile (its own user-data-dir under tmp)."""
    if not CHROMIUM.exists():
        missing(f"{CHROMIUM} is missing")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("the playwright package is missing")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
            locale="pt-BR",
        )
        context.set_default_timeout(TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    page.close()
    assert not errors, errors


def in_viewport(page: Any, selector: str) -> bool:
    return bool(
        page.eval_on_selector(
            selector,
            "el => { const r = el.getBoundingClientRect();"
            " return r.bottom > 0 && r.top < window.innerHeight; }",
        )
    )


SPARQL_ASK = "ASK { ?c a ygo:Card }"
SPARQL_MALFORMED = "SELECT ?s WHERE { ?s ?p }"
SPARQL_CONSTRUCT = "CONSTRUCT { ?r ygo:appliesIn ?f } WHERE { ?r ygo:appliesIn ?f } LIMIT 5"


def test_the_sparql_endpoint_from_the_browser(server: str, page: Any) -> None:
    """The first query this server gets (this is the module's first test) is answered, not
    stopped or refused as busy (the workers warm with the app's start); graphs carry the
    declared prefixes, HEAD answers like GET, a malformed query is the protocol's 400.
    No timing: the request's own timeout is the only bound."""
    ask = page.request.get(
        server + "/sparql?query=" + quote(SPARQL_ASK),
        headers={"accept": "application/sparql-results+json"},
    )
    assert ask.status == 200, ask.text()
    assert ask.json()["boolean"] is True
    url = server + "/sparql?query=" + quote(SPARQL_CONSTRUCT)
    graph = page.request.get(url, headers={"accept": "text/turtle"})
    assert graph.status == 200 and graph.headers["content-type"].startswith("text/turtle")
    assert "@prefix ygo: <" in graph.text() and " ygo:appliesIn " in graph.text()
    assert not re.search(r"\bns\d+:", graph.text())  # no generated prefix names
    head = page.request.head(url, headers={"accept": "text/turtle"})
    assert head.status == 200 and head.body() == b""
    assert head.headers["content-type"] == graph.headers["content-type"]
    bad = page.request.get(server + "/sparql?query=" + quote(SPARQL_MALFORMED))
    assert bad.status == 400
    assert bad.json()["code"] == "malformed_query" and bad.json()["params"] == {
        "line": 1,
        "column": 19,
    }
    navigated = page.goto(server + "/sparql?query=" + quote(SPARQL_MALFORMED))
    assert navigated.status == 400  # what a browser opening the endpoint's URL gets


@pytest.mark.parametrize("width", [1280, 390])
def test_ask_shows_the_verdict_and_the_citation_opens_in_its_document(
    server: str, page: Any, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(server + "/")
    page.evaluate("() => localStorage.removeItem('ygo-rulings.lang')")
    page.reload()
    page.fill("#q", QUESTION)
    page.press("#q", "Enter")  # the form submits with Enter
    page.wait_for_selector(".answer .verdict")
    assert page.text_content(".answer .verdict") == "Sim"
    assert page.get_attribute(".answer .verdict", "data-verdict") == "yes"
    assert page.url.startswith(server + "/?q=")
    assert page.get_attribute("#ask-results", "aria-live") == "polite"
    assert page.locator(".reasoning li").count() >= 1
    assert page.locator(".hits li").count() >= 1  # search results for the same query

    expected = httpx.post(server + "/ask", json={"question": QUESTION}).json()["citations"][0]
    first = page.locator(".citations > li").first
    assert first.locator("mark").text_content() == expected["text"]
    href = first.locator("a.open-doc").get_attribute("href")
    assert href == f"/doc/{expected['document']}#s={expected['start']}-{expected['end']}&n=" + (
        expected["id"].replace("/", "%2F")
    )

    first.locator("a.open-doc").click()
    page.wait_for_url(re.compile(r"/doc/"))
    page.wait_for_selector("#hl")
    assert page.text_content("#hl") == expected["text"]
    assert page.get_attribute("#hl", "data-start") == str(expected["start"])
    document = httpx.get(server + f"/documents/{expected['document']}").json()
    assert page.text_content("#doc-text") == document["text"]  # the whole document, as text
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'hl'")
    assert in_viewport(page, "#hl")


def test_language_switch_is_remembered(server: str, page: Any) -> None:
    page.goto(server + "/")
    page.evaluate("() => localStorage.removeItem('ygo-rulings.lang')")
    page.reload()
    assert page.text_content("label[for=q]") == "Pergunta"
    assert page.get_attribute("html", "lang") == "pt-BR"
    page.click("#lang-toggle")
    assert page.text_content("label[for=q]") == "Question"
    assert page.get_attribute("html", "lang") == "en"
    assert page.text_content("#lang-toggle") == "Português"
    page.reload()
    assert page.text_content("label[for=q]") == "Question"  # kept in localStorage
    page.fill("#q", QUESTION)
    page.click("button[type=submit]")
    page.wait_for_selector(".answer .verdict")
    assert page.text_content(".answer .verdict") == "Yes"
    page.click("#lang-toggle")
    assert page.text_content("label[for=q]") == "Pergunta"


def test_keyboard_skip_link_and_focus(server: str, page: Any) -> None:
    page.goto(server + "/")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"
    page.focus("#q")
    page.keyboard.type("Jinzo")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "format"


def test_phone_width_has_no_horizontal_scroll(server: str, page: Any) -> None:
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(server + "/?q=" + quote(QUESTION))
    page.wait_for_selector(".answer .verdict")
    for url in ("", "/doc/edison#s=4408-4480", "/?view=browse", "/?view=cards", "/?view=quiz"):
        if url:
            page.goto(server + url)
            page.wait_for_load_state("networkidle")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 375, (url, width)


def test_browse_lists_rules_by_document_and_topic(server: str, page: Any) -> None:
    page.goto(server + "/?view=browse&topic=concept%2Ftrap-monster")
    page.wait_for_selector(".outline li")
    titles = page.locator(".outline-title").all_text_contents()
    assert any("Bloqueio de Zona por Monstros de Armadilha" in t for t in titles)
    assert page.input_value("#browse-topic") == "concept/trap-monster"
    page.goto(server + "/?view=browse")
    page.wait_for_selector(".outline li")
    assert page.locator(".outline > li").count() == sum(
        len(d["outline"]) for d in httpx.get(server + "/documents").json()["documents"]
    )


def test_cards_filter(server: str, page: Any) -> None:
    page.goto(server + "/?view=cards")
    page.wait_for_selector(".card-list li")
    page.fill("#cards-filter", "dragao cibernetico")
    page.wait_for_url(re.compile(r"q=dragao"))
    page.wait_for_selector(".card-list li >> text=Dragão Cibernético Drei")
    names = page.locator(".card-list li > a").all_text_contents()
    # The card database has a dozen "Dragão Cibernético …" cards; the search ranks them first.
    assert names[0] == "Dragão Cibernético" and len(names) <= 30


def test_quiz_round_trip(server: str, page: Any) -> None:
    probe = httpx.get(server + "/quiz", params={"n": 5, "seed": 3})
    if probe.status_code == 404 and probe.json().get("error") == "Not Found":
        pytest.skip("GET /quiz is not served yet")
    assert probe.status_code == 200, probe.text
    page.goto(server + "/?view=quiz&seed=3")
    page.wait_for_selector("#quiz-form:not([hidden]) fieldset")
    fieldsets = page.locator("#quiz-questions fieldset")
    n = fieldsets.count()
    assert n >= 1
    for i in range(n):
        fieldsets.nth(i).locator("input").first.check()
    page.click("#quiz-form button[type=submit]")
    page.wait_for_selector(".score")
    chosen = page.evaluate(
        "() => [...document.querySelectorAll('#quiz-questions fieldset')].map(f =>"
        " ({id: f.dataset.qid, answer: f.querySelector('input:checked').value}))"
    )
    graded = httpx.post(server + "/quiz/check", json={"answers": chosen}).json()
    right = sum(1 for r in graded["results"] if r["correct"])
    assert page.get_attribute(".score", "data-score") == str(right)
    assert page.get_attribute(".score", "data-total") == str(n)
    assert page.locator(".quiz-results > li").count() == n


def quiz_question(qid: str, kind: str, options: list[tuple[str, str]], answer: str) -> dict:
    """A question shaped like kb/presentation/quiz.py's question_json (answer key and citation included)."""
    return {
        "id": qid,
        "kind": kind,
        "family": "statement",
        "format": "edison",
        "topics": ["trap-monster"],
        "prompt": f"Pergunta {qid}?",
        "context": None,
        "statement": "Uma afirmação." if kind == "true-false" else None,
        "options": [{"key": k, "text": t} for k, t in options],
        "answer": answer,
        "explanation": f"Explicação {qid}.",
        "citation": {
            "id": "edison/rule-05",
            "document": "edison",
            "section": "edison/rule-05",
            "start": 4408,
            "end": 4480,
            "text": "REGRA DO FORMATO EDISON # 5 - Bloqueio de Zona por Monstros de Armadilha",
        },
    }


def test_quiz_page_against_the_documented_shapes(server: str, page: Any) -> None:
    """The quiz UI over stubbed /quiz and /quiz/check (shapes of kb/presentation/quiz.py), route or not."""
    questions = [
        quiz_question("q1", "true-false", [("true", "Verdadeiro"), ("false", "Falso")], "false"),
        quiz_question("q2", "multiple-choice", [("a", "Um"), ("b", "Dois"), ("c", "Três")], "b"),
        quiz_question("q3", "yes-no", [("yes", "Sim"), ("no", "Não")], "yes"),
    ]
    key = {q["id"]: q for q in questions}
    sent: list[Any] = []

    def check(route: Any) -> None:
        answers = route.request.post_data_json["answers"]
        sent.append(answers)
        results = [
            {
                "id": a["id"],
                "correct": a["answer"] == key[a["id"]]["answer"],
                "given": a["answer"],
                "expected": key[a["id"]]["answer"],
                "expected_text": "?",
                "explanation": key[a["id"]]["explanation"],
                "citation": key[a["id"]]["citation"],
            }
            for a in answers
        ]
        right = sum(r["correct"] for r in results)
        route.fulfill(
            json={"total": len(results), "correct": right, "score": 0.5, "results": results}
        )

    page.route(
        re.compile(r".*/quiz\?.*"),
        lambda route: route.fulfill(json={"n": 5, "seed": 11, "questions": questions}),
    )
    page.route(re.compile(r".*/quiz/check(\?lang=pt)?$"), check)
    page.goto(server + "/?view=quiz&seed=11")
    page.wait_for_selector("#quiz-form:not([hidden]) fieldset")
    assert page.locator("#quiz-questions fieldset").count() == 3
    page.check("#quiz-questions fieldset[data-qid=q1] input[value=false]")  # right
    page.check("#quiz-questions fieldset[data-qid=q2] input[value=c]")  # wrong
    page.click("#quiz-form button[type=submit]")  # q3 unanswered: wrong, not sent
    page.wait_for_selector(".score")
    assert sent == [[{"id": "q1", "answer": "false"}, {"id": "q2", "answer": "c"}]]
    assert page.text_content(".score") == "Você acertou 1 de 3."
    assert page.locator(".quiz-results .explanation").all_text_contents() == [
        "Explicação q1.",
        "Explicação q2.",
        "Explicação q3.",
    ]
    source = page.locator(".quiz-results a").first.get_attribute("href")
    assert source == "/doc/edison#s=4408-4480&n=edison%2Frule-05"


def test_quiz_page_says_when_the_route_is_missing(server: str, page: Any) -> None:
    page.route(
        re.compile(r".*/quiz\?.*"),
        lambda route: route.fulfill(
            status=404, json={"ok": False, "error": "Not Found", "status": 404}
        ),
    )
    page.goto(server + "/?view=quiz")
    page.wait_for_selector("[data-missing=quiz]")
    assert page.is_hidden("#quiz-form")


def test_node_view_renders_a_card_with_links(server: str, page: Any) -> None:
    page.goto(server + "/?view=node&id=card%2Fjinzo")
    page.wait_for_selector("#node-body .fact-list li")
    assert page.text_content("#node-title") == "Jinzo"
    hrefs = page.locator("#node-body .actions a").evaluate_all("as => as.map(a => a.href)")
    assert server + "/id/card/jinzo?as=ttl" in hrefs
    assert page.locator("#node-body .fact-list li").count() >= 1
    page.goto(server + "/?view=node&id=edison%2Frule-55")
    page.wait_for_selector("#node-body .error")
    assert page.locator("#node-body ul a").count() >= 1  # close ids from the 404 envelope


@pytest.mark.parametrize(
    ("path", "selector"), [("/docs", ".opblock"), ("/redoc", "[data-section-id^=operation]")]
)
def test_api_docs_render_offline(server: str, page: Any, path: str, selector: str) -> None:
    """Swagger UI and ReDoc render every operation with every request off this server refused
    (what an offline machine sees)."""
    refused: list[str] = []

    def only_local(route: Any) -> None:
        if route.request.url.startswith(server):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.goto(server + path)
    operations = sum(
        len(ops) for ops in httpx.get(server + "/openapi.json").json()["paths"].values()
    )
    # A locator waits in Playwright's own world: the page's policy forbids the string evaluation
    # that wait_for_function would need.
    page.locator(selector).nth(operations - 1).wait_for(state="attached", timeout=TIMEOUT_MS)
    assert all("redoc.ly" in url for url in refused), refused  # ReDoc's footer logo only


# --- the answer, document and cards views at desktop and phone widths --------------------------
WIDTHS = [1280, 390]
NULL_VERDICT = "Quantas cópias de Pote da Ganância posso ter no Edison?"
NO_RULE = "O que acontece com a pizza?"
# Codes and English that must not reach the Portuguese page (card kinds, authorities, "(a)" …).
RAW = re.compile(
    r"trap-effects|spell-effects|monster-effects|\bcurated\b|\binferred\b|\(a\)|Format Format"
    r"|Nearest passages|\bsource\b|\brelevance\b|\bmonster\b|\bcontinuous\b|\bundefined\b|\bnull\b"
)


def ask(page: Any, server: str, question: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(server + "/?q=" + quote(question))
    page.wait_for_selector(".answer .verdict")
    page.wait_for_selector(".search")  # the search card comes last


def no_horizontal_scroll(page: Any, width: int, where: str) -> None:
    scroll = page.evaluate("() => document.documentElement.scrollWidth")
    assert scroll <= width, (where, scroll)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_null_verdict_shows_no_confidence_but_its_value(
    server: str, page: Any, width: int
) -> None:
    ask(page, server, NULL_VERDICT, width)
    expected = httpx.post(server + "/ask", json={"question": NULL_VERDICT}).json()
    assert expected["verdict"] is None and expected["value"]["value"] == 0
    assert page.text_content(".answer .verdict") == "Sem veredito"
    assert page.locator(".answer meter").count() == 0
    assert page.locator(".answer .confidence").count() == 0
    assert "%" not in page.text_content(".answer .facts-row")
    assert page.text_content(".answer-value .value") == "0 cópias"
    no_horizontal_scroll(page, width, "null verdict")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_yes_no_answer_shows_its_confidence_bar(server: str, page: Any, width: int) -> None:
    ask(page, server, QUESTION, width)
    expected = httpx.post(server + "/ask", json={"question": QUESTION}).json()
    assert expected["verdict"] == "yes"
    meter = page.locator(".answer .confidence meter")
    assert meter.count() == 1
    assert float(meter.get_attribute("value")) == pytest.approx(expected["confidence"], abs=0.01)
    assert f"{round(expected['confidence'] * 100)}%" in page.text_content(".answer .confidence")
    # Cards and concepts are chips named in the page language, linking to their pages.
    chips = page.locator(".related-chips .chip")
    assert chips.count() >= 3
    for i in range(chips.count()):
        chip = chips.nth(i)
        assert "/" not in chip.text_content()  # a label, not an id
        assert chip.get_attribute("href").startswith(("/cards/", "/?view=node"))
    assert "Julgamento Solene" in page.locator(".entities .chip").all_text_contents()[0]
    no_horizontal_scroll(page, width, "yes/no")


@pytest.mark.parametrize("width", WIDTHS)
def test_related_passages_show_their_text_and_open_at_their_span(
    server: str, page: Any, width: int
) -> None:
    ask(page, server, NO_RULE, width)
    items = page.locator(".related-passage")
    assert items.count() >= 3
    related = httpx.post(server + "/ask", json={"question": NO_RULE}).json()["related"]
    first = items.first
    assert first.locator(".passage-title").text_content().strip()
    shown = first.locator(".passage-text").text_content()
    node_id = first.locator("a.open-doc").get_attribute("data-id")
    assert node_id in related
    node = httpx.get(server + "/id/" + node_id).json()
    assert len(shown) > 20 and node["text"].startswith(shown.removesuffix("…"))
    first.locator("a.open-doc").click()
    page.wait_for_url(re.compile(r"/doc/"))
    page.wait_for_selector("#hl")
    span = node["span"]
    text = httpx.get(server + f"/documents/{span['document']}").json()["text"]
    assert page.text_content("#hl") == text[span["start"] : span["end"]]


@pytest.mark.parametrize("width", WIDTHS)
def test_no_raw_codes_in_the_portuguese_answers_and_card_views(
    server: str, page: Any, width: int
) -> None:
    for question in (QUESTION, NULL_VERDICT, NO_RULE, "Armadilha Falsa é ativado?"):
        ask(page, server, question, width)
        shown = page.inner_text("main")
        assert not RAW.search(shown), (question, RAW.search(shown))
        # no bare ids ("card/efeito" is the Tag document's own wording, quoted)
        assert not re.search(r"\b(?:card|concept|format)/(?!efeito)[a-z]", shown), question
    for url, ready in (
        ("/?view=node&id=card%2Fjinzo", "#node-body .fact-list"),
        ("/?view=node&id=card%2Fsolemn-judgment", "#node-body .fact-list"),
        ("/?view=cards&type=trap", ".card-hit"),
        ("/?view=cards&q=jinzo", ".card-hit"),
    ):
        page.goto(server + url)
        page.wait_for_selector(ready)
        page.wait_for_load_state("networkidle")
        shown = page.inner_text("main")
        assert not RAW.search(shown), (url, RAW.search(shown))
    page.goto(server + "/?view=cards&type=trap")
    page.wait_for_selector(".card-hit")
    kinds = set(page.locator(".card-hit .badge:not(.badge-status)").all_text_contents())
    assert kinds and kinds <= {
        "Armadilha Normal",
        "Armadilha Contínua",
        "Armadilha Resposta",
    }, kinds
    statuses = {s.split(" · ")[0] for s in page.locator(".badge-status").all_text_contents()}
    assert statuses <= {"Proibido", "Limitado", "Semi-Limitado"}, statuses


@pytest.mark.parametrize("width", WIDTHS)
def test_errors_are_page_states_in_the_page_language(server: str, page: Any, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    too_long = "x" * 1001  # the API's 422 envelope
    message = httpx.post(server + "/ask", json={"question": too_long}).json()["error"]
    page.goto(server + "/?q=" + too_long)
    page.wait_for_selector("#ask-results .error")
    assert page.get_attribute("#ask-results .error", "data-status") == "422"
    assert "O servidor recusou o pedido (erro 422)" in page.text_content(".error-frame")
    assert page.text_content(".error-message") == (
        "O campo «pergunta» tem 1001 caracteres; o limite é 1000."
    )
    assert message not in page.inner_text("main")  # the server's English stays out
    no_horizontal_scroll(page, width, "error")
    page.route(re.compile(r".*/ask$"), lambda route: route.abort())
    page.goto(server + "/?q=" + quote(QUESTION))
    page.wait_for_selector("#ask-results .error")
    assert "Sem resposta do servidor" in page.text_content(".error-frame")
    assert page.locator("#ask-results .error button").count() == 1  # try again
    page.unroute(re.compile(r".*/ask$"))
    page.click("#ask-results .error button")
    page.wait_for_selector(".answer .verdict")
    page.goto(server + "/?view=cards&type=potion")
    page.wait_for_selector("#cards-results .error")
    assert "erro 422" in page.text_content("#cards-results .error-frame")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_rulings_document_reads_as_paragraphs_and_spans_stay_exact(
    server: str, page: Any, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    text = httpx.get(server + "/documents/rulings").json()["text"]
    start, end = 208, 873  # a heading, a paragraph and list items: a span across blocks
    page.goto(server + f"/doc/rulings#s={start}-{end}")
    page.wait_for_selector("#hl")
    assert page.locator("#doc-text p.doc-block").count() >= 20
    assert page.locator("#doc-text :is(h2, h3, h4).doc-heading").count() >= 10
    assert page.text_content("#doc-text") == text  # every character, in order
    marked = page.eval_on_selector_all("#doc-text mark.hl", "ms => ms.map(m => m.textContent)")
    assert "".join(marked) == text[start:end]
    heights = page.eval_on_selector_all(
        "#doc-text p.doc-block", "ps => ps.map(p => p.getBoundingClientRect().height)"
    )
    assert max(heights) < 900  # no wall of text taller than the screen
    no_horizontal_scroll(page, width, "rulings document")
    # A citation from an answer still opens at its exact span.
    cited = httpx.post(server + "/ask", json={"question": QUESTION}).json()["citations"][1]
    page.goto(server + f"/doc/{cited['document']}#s={cited['start']}-{cited['end']}")
    page.wait_for_function(
        f"() => document.querySelector('#hl')?.dataset.start === '{cited['start']}'"
    )
    assert page.text_content("#hl") == cited["text"]


@pytest.mark.parametrize("width", WIDTHS)
def test_cards_search_as_you_type_and_pages(server: str, page: Any, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    total = httpx.get(server + "/catalog/page").json()["total"]
    assert total > 14_000
    page.goto(server + "/?view=cards")
    page.wait_for_selector(".card-hit")
    assert page.get_attribute("#cards-count", "data-total") == str(total)
    first_page = page.locator(".card-name").all_text_contents()
    assert len(first_page) == 30
    page.click(".pager-next")
    page.wait_for_url(re.compile(r"page=2"))
    page.wait_for_function(
        "() => document.querySelector('#cards-count').textContent.startsWith('31')"
    )
    assert not set(page.locator(".card-name").all_text_contents()) & set(first_page)
    page.click(".pager-prev")
    page.wait_for_function(
        "() => document.querySelector('#cards-count').textContent.startsWith('1')"
    )
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "/catalog/page" in r.url else None)
    page.locator("#cards-filter").press_sequentially("dragao cibernetico")
    page.wait_for_url(re.compile(r"q=dragao\+cibernetico|q=dragao%20cibernetico"))
    page.wait_for_selector(".card-name >> text=Dragão Cibernético Drei")
    assert len(requests) < len("dragao cibernetico")  # debounced, not one request a key
    found = int(page.get_attribute("#cards-count", "data-total"))
    assert 30 < found < 100  # more than one page of "Dragão Cibernético …" hits
    assert page.locator(".card-name").first.text_content() == "Dragão Cibernético"
    page.click(".pager-next")
    page.wait_for_url(re.compile(r"page=2"))
    page.wait_for_function(
        "() => document.querySelector('#cards-count').textContent.startsWith('31')"
    )
    assert page.locator(".card-hit").count() == found - 30
    href = page.locator(".card-name").first.get_attribute("href")
    assert href.startswith(("/cards/", "/?view=node"))
    no_horizontal_scroll(page, width, "cards")
    page.select_option("#cards-type", "spell")
    page.wait_for_url(re.compile(r"type=spell"))
    page.wait_for_function(
        "() => !document.querySelector('#cards-count').textContent.startsWith('31')"
    )
    assert "page=" not in page.url  # a new search starts on page 1


def test_main_views_fit_a_390px_phone(server: str, page: Any) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    for url, ready in (
        ("/?q=" + quote(QUESTION), ".search"),
        ("/?q=" + quote(NO_RULE), ".search"),
        ("/doc/rulings", ".doc-block"),
        ("/doc/edison#s=4408-4480", "#hl"),
        ("/?view=cards", ".card-hit"),
        ("/?view=node&id=card%2Fjinzo", "#node-body .props"),
        ("/?view=browse", ".outline li"),
        ("/?view=banlist&format=edison", ".banlist-cards li"),
        ("/?view=deck", "#deck-format:has(option)"),
        ("/?view=quiz&seed=3", "#quiz-questions fieldset"),
        ("/?view=sparql&query=" + quote(SPARQL_CONSTRUCT), ".sparql-text"),
        ("/?view=sparql&query=" + quote(SPARQL_MALFORMED), ".sparql-caret"),
    ):
        page.goto(server + url)
        page.wait_for_selector(ready)
        no_horizontal_scroll(page, 390, url)


# --- every error in the page language ------------------------------------------------------------
LANG_KEY = "ygo-rulings.lang"
# English words of the server's messages that must not reach the Portuguese page.
ENGLISH = re.compile(
    r"\b(?:unknown|must|characters long|the limit is|malformed|did you mean|use one of|"
    r"Expected|got|not allowed|read-only)\b"
)
# (page, where its error shows, the API request it makes, the message in pt, the message in en)
ERROR_CASES = {
    "too-long question": (
        "/?q=" + "x" * 1001,
        "#ask-results",
        ("post", "/ask", {"json": {"question": "x" * 1001}}),
        "O campo «pergunta» tem 1001 caracteres; o limite é 1000.",
        "The field “question” is 1001 characters long; the limit is 1000.",
    ),
    "unknown node": (
        "/?view=node&id=edison%2Frule-55",
        "#node-body",
        ("get", "/id/edison/rule-55", {}),
        "Nenhum nó da base tem o id «edison/rule-55».",
        "No node of the knowledge base has the id “edison/rule-55”.",
    ),
    "unknown document": (
        "/doc/no-such-doc",
        "#doc-status",
        ("get", "/documents/no-such-doc", {}),
        "Nenhum documento tem o id «no-such-doc».",
        "No document has the id “no-such-doc”.",
    ),
    "unknown card type": (
        "/?view=cards&type=potion",
        "#cards-results",
        ("get", "/catalog/page", {"params": {"type": "potion"}}),
        "«potion» não é um valor conhecido para o campo «tipo».",
        "“potion” is not a known value for the field “type”.",
    ),
    "unknown quiz topic": (
        "/?view=quiz&seed=1&topic=no-such-topic",
        "#quiz-status",
        ("get", "/quiz", {"params": {"n": 5, "seed": 1, "topic": "no-such-topic"}}),
        "«no-such-topic» não é um valor conhecido para o campo «tema».",
        "“no-such-topic” is not a known value for the field “topic”.",
    ),
    "malformed SPARQL": (
        "/?view=sparql&query=" + quote(SPARQL_MALFORMED),
        "#sparql-results",
        ("get", "/sparql", {"params": {"query": SPARQL_MALFORMED}}),
        "A consulta SPARQL está malformada na linha 1, coluna 19.",
        "The SPARQL query is malformed at line 1, column 19.",
    ),
    "SPARQL update": (
        "/?view=sparql&query=" + quote("DROP ALL"),
        "#sparql-results",
        ("get", "/sparql", {"params": {"query": "DROP ALL"}}),
        "O endpoint SPARQL é somente leitura: SPARQL Update não é permitido.",
        "The SPARQL endpoint is read-only: SPARQL Update is not allowed.",
    ),
}


def open_in(page: Any, server: str, url: str, lang: str) -> None:
    """`url` with the page language set to `lang` (pt or en), as the switch leaves it."""
    page.goto(server + "/")
    page.evaluate(f"() => localStorage.setItem({LANG_KEY!r}, {lang!r})")
    page.goto(server + url)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_each_failed_request_is_worded_in_the_page_language(
    server: str, page: Any, width: int, case: str
) -> None:
    url, where, (method, path, kwargs), in_pt, in_en = ERROR_CASES[case]
    served = getattr(httpx, method)(server + path, **kwargs).json()
    assert served["ok"] is False and served["code"]  # the envelope the page words
    page.set_viewport_size({"width": width, "height": 900})
    try:
        for lang, expected in (("pt", in_pt), ("en", in_en)):
            open_in(page, server, url, lang)
            box = page.wait_for_selector(f"{where} .error")
            assert box.get_attribute("data-code") == served["code"]
            assert page.text_content(f"{where} .error-message") == expected
            assert page.locator(f"{where} .error-detail").count() == 0  # nothing left to say
            shown = page.inner_text("main")
            assert served["error"].split("\n")[0] not in shown  # the server's sentence stays out
            if lang == "pt":
                assert not ENGLISH.search(shown), ENGLISH.search(shown)
            no_horizontal_scroll(page, width, case)
    finally:
        page.evaluate(f"() => localStorage.removeItem({LANG_KEY!r})")


def answer_with(body: dict) -> Any:
    """A route handler answering `body` as a 422 (Playwright passes only the route)."""
    return lambda route: route.fulfill(status=422, json=body)


@pytest.mark.parametrize("width", WIDTHS)
def test_an_unknown_error_code_falls_back_to_a_framed_server_message(
    server: str, page: Any, width: int
) -> None:
    """A code the page cannot word (a newer server, an older envelope without one): the frame in
    the page language, the server's text under a label saying it is the server's, in English."""
    page.set_viewport_size({"width": width, "height": 900})
    envelopes = [
        {"ok": False, "error": "a brand new refusal", "status": 422, "code": "brand_new"},
        {"ok": False, "error": "an older envelope", "status": 422},
    ]
    for body in envelopes:
        page.route(re.compile(r".*/ask$"), answer_with(body))
        page.goto(server + "/?q=" + quote(QUESTION))
        page.wait_for_selector("#ask-results .error")
        assert "O servidor recusou o pedido (erro 422)." in page.text_content(".error-frame")
        assert page.locator("#ask-results .error-message").count() == 0
        assert page.text_content(".error-server summary") == "Mensagem do servidor (em inglês)"
        assert page.get_attribute(".error-detail", "lang") == "en"
        assert page.text_content(".error-detail") == body["error"]
        page.unroute(re.compile(r".*/ask$"))


# --- the quiz, played --------------------------------------------------------------------------
QUIZ_TOPIC = "rulings-special-summon"  # its rules are list items under a heading: verb-first


def flipped_question_with_a_heading(server: str) -> tuple[int, dict]:
    """A seed whose quiz holds a flipped true/false statement that opens with its verb (its
    subject is the heading, shown as the question's context), and that question."""
    from kb.presentation.quiz_checks import lacks_subject

    for seed in range(60):
        quiz = httpx.get(
            server + "/quiz", params={"n": 5, "seed": seed, "topic": QUIZ_TOPIC}
        ).json()
        for q in quiz["questions"]:
            flipped = q["kind"] == "true-false" and q["answer"] == "false"
            if flipped and q["context"] and lacks_subject(q["statement"]):
                return seed, q
    pytest.fail(f"no seed below 60 gives a flipped verb-first statement in {QUIZ_TOPIC}")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_judge_plays_a_quiz(server: str, page: Any, width: int) -> None:
    seed, flipped = flipped_question_with_a_heading(server)
    quiz = httpx.get(server + "/quiz", params={"n": 5, "seed": seed, "topic": QUIZ_TOPIC}).json()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(server + f"/?view=quiz&seed={seed}&topic={QUIZ_TOPIC}")
    page.wait_for_selector("#quiz-form:not([hidden]) fieldset")
    no_horizontal_scroll(page, width, "quiz questions")
    # The flipped statement keeps its subject: the heading it belongs to is shown with it, and
    # that heading names a term of the graph.
    asked = page.locator(f"#quiz-questions fieldset[data-qid='{flipped['id']}']")
    assert asked.locator(".quiz-statement").text_content() == flipped["statement"]
    assert asked.locator(".quiz-context").text_content() == flipped["context"]
    linked = httpx.get(server + "/link", params={"q": flipped["context"]}).json()["entities"]
    assert any(e["type"] == "Concept" for e in linked), linked
    for q in quiz["questions"]:  # each true/false statement is shown with its subject
        shown = page.locator(f"#quiz-questions fieldset[data-qid='{q['id']}']")
        if q["kind"] == "true-false":
            assert shown.locator(".quiz-statement").text_content() == q["statement"]
            assert (shown.locator(".quiz-context").count() == 1) == bool(q["context"])
    for q in quiz["questions"]:  # the key for the flipped one, the first option elsewhere
        choice = q["answer"] if q["id"] == flipped["id"] else q["options"][0]["key"]
        page.check(f"#quiz-questions fieldset[data-qid='{q['id']}'] input[value='{choice}']")
    page.click("#quiz-form button[type=submit]")
    page.wait_for_selector(".score")
    results = page.locator(".quiz-results > li")
    assert results.count() == len(quiz["questions"])
    index = [q["id"] for q in quiz["questions"]].index(flipped["id"])
    result = results.nth(index)
    assert "right" in result.get_attribute("class")
    assert result.locator(".quiz-context").text_content() == flipped["context"]  # subject kept
    assert result.locator(".explanation").text_content().strip()
    source = result.locator(".quiz-source a.open-doc")
    assert "/" not in source.text_content()  # a section and document named, not an id
    no_horizontal_scroll(page, width, "quiz results")
    source.click()
    page.wait_for_url(re.compile(r"/doc/"))
    page.wait_for_selector("#hl")
    assert page.text_content("#hl") == flipped["citation"]["text"]
    assert in_viewport(page, "#hl")


# --- SPARQL: the page's SPARQL view (the endpoint itself: the first test above) ------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_the_sparql_view_shows_results_and_errors_in_the_page_language(
    server: str, page: Any, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(server + "/?view=sparql")
    example = page.input_value("#sparql-query")
    page.click("#sparql-form button[type=submit]")
    page.wait_for_selector(".sparql-table")
    expected = httpx.get(server + "/sparql", params={"query": example}).json()
    rows = expected["results"]["bindings"]
    assert 0 < len(rows) == page.locator(".sparql-table tbody tr").count()
    assert page.text_content(".sparql-count") == f"{len(rows)} linhas"
    first = page.locator(".sparql-table tbody tr").first.locator("a").first
    assert first.get_attribute("href").startswith("/?view=node&id=")
    no_horizontal_scroll(page, width, "sparql table")
    for query, ready, check in (
        (
            SPARQL_ASK,
            ".sparql-boolean",
            lambda: page.text_content(".sparql-boolean") == "Verdadeiro",
        ),
        (
            SPARQL_CONSTRUCT,
            ".sparql-text",
            lambda: "@prefix ygo:" in page.text_content(".sparql-text"),
        ),
    ):
        page.fill("#sparql-query", query)
        page.click("#sparql-form button[type=submit]")
        page.wait_for_selector(ready)
        assert check(), query
        no_horizontal_scroll(page, width, query)
    assert not re.search(r"\bns\d+:", page.text_content(".sparql-text"))
    page.fill("#sparql-query", "PREFIX x: <urn:x:>\n" + SPARQL_MALFORMED)
    page.click("#sparql-form button[type=submit]")
    page.wait_for_selector("#sparql-results .error")
    assert page.text_content("#sparql-results .error-message") == (
        "A consulta SPARQL está malformada na linha 2, coluna 19."
    )
    line, caret = page.text_content(".sparql-caret").split("\n")
    assert line == SPARQL_MALFORMED and caret.index("^") == 18  # under the 19th character
    no_horizontal_scroll(page, width, "sparql error")
    try:
        page.click("#lang-toggle")  # the same state, now in English
        page.wait_for_selector("#sparql-results .error")
        assert page.text_content("#sparql-results .error-message") == (
            "The SPARQL query is malformed at line 2, column 19."
        )
        assert page.text_content("label[for=sparql-query]") == "Query"
    finally:
        page.evaluate(f"() => localStorage.removeItem({LANG_KEY!r})")


# --- deck checker, banlist view, list badges, did you mean -----------------------------------------
# Line 1 "Main:", 2 three Sangan (Limited in Edison: past the limit here), 3 Pot of Greed (Forbidden),
# 4-5 a Mystical Space Typhoon each (Limited: the second copy, line 5, goes over), 6 an Extra Deck
# monster in the Main Deck, 7 no card, 8 "Extra:", 9 a Sangan in the Extra Deck.
DECK = (
    "Main:\n3 Sangan\n1 Pot of Greed\n1 Mystical Space Typhoon\n1 Mystical Space Typhoon\n"
    "1 Stardust Dragon\nPotion of Grid\nExtra:\n1 Sangan"
)


def selected_text(page: Any, selector: str) -> str:
    return page.eval_on_selector(
        selector, "el => el.value.slice(el.selectionStart, el.selectionEnd)"
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_the_deck_checker_shows_each_violation_with_its_lines_and_source(
    server: str, page: Any, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(server + "/?view=deck&format=edison")
    page.locator("#deck-format option[value=edison]").wait_for(state="attached")
    assert page.input_value("#deck-format") == "edison"
    page.fill("#deck-text", DECK)
    page.click("#deck-form button[type=submit]")
    report = page.locator(".deck-report")
    report.wait_for()
    expected = httpx.post(server + "/deck/validate", json={"format": "edison", "deck": DECK}).json()
    assert report.get_attribute("data-ok") == "false" and not expected["ok"]
    items = page.locator(".violation")
    assert items.count() == len(expected["violations"])
    shown = {
        (items.nth(i).get_attribute("data-kind"), items.nth(i).get_attribute("data-line"))
        for i in range(items.count())
    }
    assert shown == {
        (v["kind"], None if v["line"] is None else str(v["line"])) for v in expected["violations"]
    }
    assert {("forbidden", "3"), ("limited", "5"), ("limited", "2"), ("unknown-card", "7")} <= shown
    assert ("misplaced", "6") in shown and ("misplaced", "9") in shown
    forbidden = page.locator(".violation[data-kind=forbidden]")
    assert forbidden.locator(".violation-kind").text_content() == "Proibido"
    assert forbidden.locator(".violation-card").text_content() == "Pot of Greed"
    source = forbidden.locator(".violation-source a")
    assert source.get_attribute("href").startswith("/doc/edison#s=")
    forbidden.locator(".line-link").first.click()  # selects the line in the text box
    assert selected_text(page, "#deck-text") == "1 Pot of Greed"
    typhoon = page.locator(".violation[data-kind=limited][data-line='5']")
    assert typhoon.locator(".line-link").all_text_contents() == ["Linha 5", "Linhas 4–5"]
    typhoon.locator(".line-link").nth(1).click()
    assert selected_text(page, "#deck-text") == "1 Mystical Space Typhoon\n1 Mystical Space Typhoon"
    assert "format=edison" in page.url and "Sangan" not in page.url  # the deck stays on the page
    no_horizontal_scroll(page, width, "deck checker")


def test_the_deck_checker_says_a_deck_is_legal_and_words_a_refusal(server: str, page: Any) -> None:
    legal = "\n".join(["Main:", *(f"3 {n}" for n in LEGAL_FILLER)])
    page.goto(server + "/?view=deck")
    page.locator("#deck-format option[value=general]").wait_for(state="attached")
    page.fill("#deck-text", legal)
    page.click("#deck-form button[type=submit]")
    page.locator(".deck-report[data-ok=true]").wait_for()
    assert page.locator(".violation").count() == 0
    assert "Principal 42" in page.text_content(".deck-counts")
    page.fill("#deck-text", "#main\nabc")
    page.click("#deck-form button[type=submit]")
    error = page.locator("#deck-results .notice.error")
    error.wait_for()
    assert "«deck»" in error.text_content()


# 14 cards with no limit in the general rules: 42 cards at 3 copies each.
LEGAL_FILLER = [
    "Sangan", "Jinzo", "Cyber Dragon", "Mystical Elf", "Celtic Guardian", "Dark Magician",
    "Summoned Skull", "Gemini Elf", "Vorse Raider", "Giant Soldier of Stone", "Kuriboh",
    "Man-Eater Bug", "Sakuretsu Armor", "Magic Cylinder",
]  # fmt: skip


@pytest.mark.parametrize("width", WIDTHS)
def test_the_banlist_view_lists_each_status_and_filters(server: str, page: Any, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    expected = httpx.get(server + "/banlist", params={"format": "edison"}).json()
    page.goto(server + "/?view=banlist&format=edison")
    forbidden = page.locator(".banlist-group[data-status=forbidden] .banlist-cards li")
    forbidden.first.wait_for()
    assert forbidden.count() == expected["counts"]["forbidden"] == len(expected["forbidden"])
    limited = page.locator(".banlist-group[data-status=limited] .banlist-cards li")
    assert limited.count() == expected["counts"]["limited"]
    semi = page.locator(".banlist-group[data-status=semi-limited] .banlist-cards li")
    assert semi.count() == expected["counts"]["semi_limited"]
    assert "2010-03-01" in page.text_content(".banlist-meta")
    assert page.locator(".banlist-group[data-status=forbidden] .badge-status").text_content() == (
        "Proibido"
    )
    no_horizontal_scroll(page, width, "banlist")
    page.fill("#banlist-filter", "Pote da Ganância")
    page.wait_for_url(re.compile(r"q=Pote"))
    page.locator(".banlist-group[data-status=limited] .empty").wait_for()
    assert forbidden.all_text_contents()[0].startswith("Pote da Ganância")
    assert forbidden.count() == 1
    page.select_option("#banlist-format", "tag")
    page.wait_for_url(re.compile(r"format=tag"))
    page.locator(".banlist[data-format=tag]").wait_for()
    tag = httpx.get(server + "/banlist", params={"format": "tag"}).json()
    assert page.locator(".banlist-group[data-status=forbidden] .banlist-cards li").count() == sum(
        1 for c in tag["forbidden"] if "pote da ganancia" in fold_name(c)
    )
    no_horizontal_scroll(page, width, "banlist filtered")


def fold_name(card: dict) -> str:
    text = " ".join([card["name_en"], card.get("name_pt") or ""])
    return "".join(
        c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c)
    ).lower()


def test_card_results_and_card_views_show_list_badges(server: str, page: Any) -> None:
    page.goto(server + "/?view=cards&q=" + quote("Pote da Ganância"))
    pot = page.locator(
        ".card-hit", has=page.locator(".card-name", has_text=re.compile("^Pote da Ganância$"))
    )
    badges = pot.locator(".badge-status[data-status=forbidden]")
    badges.first.wait_for()
    assert "Proibido · Edison" in badges.all_text_contents()
    page.goto(server + "/?view=node&id=card%2Fpot-of-greed")
    page.locator(".card-statuses .status-forbidden").first.wait_for()
    assert "Proibido · Edison" in page.locator(".card-statuses .badge").all_text_contents()
    page.goto(server + "/?view=node&id=card%2Fjinzo")
    page.wait_for_selector("#node-body .props")
    assert page.locator(".card-statuses .status-forbidden").count() == 0


HALF_REMEMBERED = "Dragão Gaia, o Cavaleiro do Trovão pode atacar duas vezes?"


@pytest.mark.parametrize("width", WIDTHS)
def test_a_half_remembered_card_name_gets_a_did_you_mean(
    server: str, page: Any, width: int
) -> None:
    ask(page, server, HALF_REMEMBERED, width)
    expected = httpx.post(server + "/ask", json={"question": HALF_REMEMBERED}).json()
    first = expected["suggestions"][0]
    suggestion = page.locator(".did-you-mean .suggestion").first
    assert suggestion.get_attribute("data-id") == first["id"]
    assert suggestion.locator(".suggestion-ask").text_content() == first["name_pt"]
    href = suggestion.locator(".suggestion-ask").get_attribute("href")
    [asked] = parse_qs(urlsplit(href).query)["q"]
    start, end = first["span"]
    assert asked == HALF_REMEMBERED[:start] + first["name_pt"] + HALF_REMEMBERED[end:]
    no_horizontal_scroll(page, width, "did you mean")
