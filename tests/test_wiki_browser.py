"""The wiki HTML pages in Debian's Chromium at desktop (1280 px) and phone (390 px) widths.

Chromium and Playwright as in tests/test_web_browser.py (its launch options and its skip-or-fail
rule); the app is served in-process by uvicorn over the KB without the card table (`lite_service`),
which holds every rule page and the curated cards the documents name.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from test_web_browser import (  # type: ignore[import-not-found]
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    missing,
)
from tests_support import free_port  # type: ignore[import-not-found]

from api.app import create_app
from kb.service import RulingsService

pytestmark = pytest.mark.e2e

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
RULE = "/rules/edison/rule-10?as=html"
CARD = "/cards/jinzo?as=html"
# A deep section: long ids and IRIs in its references.
SECTION = "/rules/rulings/special-summon/inherent?as=html"


@pytest.fixture(scope="module")
def server(lite_service: RulingsService) -> Iterator[str]:
    """The app on a free loopback port, in a thread of this process."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(
        create_app(lite_service), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    started = threading.Event()
    while not started.wait(0.05):  # uvicorn sets `started` once it listens
        if server.started:
            started.set()
        elif not thread.is_alive():
            raise RuntimeError("the server thread exited")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not CHROMIUM.exists():
        missing(f"{CHROMIUM} is missing")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("the playwright package is missing")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(params=list(WIDTHS), ids=list(WIDTHS))
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A page in a fresh context of one width (a phone context is a mobile, touch one)."""
    width, height = WIDTHS[request.param]
    phone = request.param == "phone"
    context = browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=phone,
        has_touch=phone,
        device_scale_factor=2 if phone else 1,
        locale="pt-BR",
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


def horizontal_overflow(page: Any) -> int:
    """How many CSS pixels the page is wider than its viewport (0: no sideways scroll)."""
    return int(page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth"))


@pytest.mark.parametrize("path", [RULE, CARD, SECTION], ids=["rule", "card", "section"])
def test_wiki_pages_never_scroll_sideways(server: str, page: Any, path: str) -> None:
    response = page.goto(server + path)
    assert response.ok
    width = page.evaluate("() => window.innerWidth")
    assert width == page.viewport_size["width"]  # the viewport meta: a phone lays out at 390
    assert horizontal_overflow(page) <= 0
    # the long permalinks wrap inside the page instead of widening it
    widest = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('a.iri, table, h1')]"
        ".map(el => el.getBoundingClientRect().right))"
    )
    assert widest <= width


def test_back_link_goes_to_the_app(server: str, page: Any) -> None:
    page.goto(server + RULE)
    page.click("a.home")
    page.wait_for_url(server + "/")
    page.wait_for_selector("#q")  # the app's question box


def test_related_links_navigate_to_local_pages(server: str, page: Any) -> None:
    page.goto(server + RULE)
    card = page.locator("h2:text('Cards relacionados') + ul a").first
    name = card.text_content()
    card.click()
    page.wait_for_url(server + "/cards/mirror-wall?as=html")
    assert page.text_content("h1") == name
    assert horizontal_overflow(page) <= 0
    rule = page.locator("main ul a[href^='/rules/']").first
    rule.click()
    page.wait_for_url(server + "/rules/edison/rule-10?as=html")
    opens = page.locator(".refs a", has_text="abrir no documento").first
    href = opens.get_attribute("href")
    assert href.startswith("/doc/edison#s=")
    opens.click()
    page.wait_for_url(server + href)
    # the permalink shows the public IRI, the page stays here until it is clicked
    page.goto(server + RULE)
    permalink = page.locator("p.meta a.iri")
    assert permalink.text_content() == "https://w3id.org/ygo-rulings/id/edison/rule-10"


ICON_SIZE = """async (href) => {
  const img = new Image();
  img.src = href;
  await img.decode();
  return [img.naturalWidth, img.naturalHeight];
}"""


def test_favicon_loads(server: str, page: Any) -> None:
    for path in (RULE, "/"):
        page.goto(server + path)
        icons = page.eval_on_selector_all("link[rel=icon]", "els => els.map(e => e.href)")
        assert server + "/favicon.svg" in icons
        for href in icons:
            width, height = page.evaluate(ICON_SIZE, href)
            assert width > 0 and height > 0, href
    width, _ = page.evaluate(ICON_SIZE, server + "/favicon.ico")  # the ICO decodes too
    assert width in (16, 32)


def test_an_editor_pastes_two_pages_into_one_article(server: str, page: Any) -> None:
    """Each page's "wikitext" link gives its source; pasted together, the references merge."""
    import mwparserfromhell

    sources = []
    for path in (RULE, "/cards/mirror-wall?as=html"):
        page.goto(server + path)
        with page.expect_response(lambda r: "as=wikitext" in r.url) as response:
            page.click("nav.formats a:text('wikitext')")
        sources.append(response.value.text())
    contents: dict[str, set[str]] = {}
    for tag in mwparserfromhell.parse("\n".join(sources)).filter_tags(
        matches=lambda node: node.tag == "ref"
    ):
        name = str(tag.get("name").value)
        if not tag.self_closing:
            contents.setdefault(name, set()).add(str(tag.contents))
    assert all(len(c) == 1 for c in contents.values())  # a shared name means the same reference
    shared = "ygo-edison-rule-10-example-01-"  # Mirror Wall's example: cited by both pages
    assert sum(name.startswith(shared) for name in contents) == 1
    assert all(re.search(rf'<ref name="{shared}[0-9a-f]{{6}}">', s) for s in sources)
