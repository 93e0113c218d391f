"""The web page's server side through the ASGI app: the page, its static files, its JSON views."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from kb.ids import fold
from kb.service import RulingsService

STATIC = Path(__file__).resolve().parents[1] / "api" / "static"


@pytest.fixture(scope="module")
def client(hash_service: RulingsService) -> TestClient:
    return TestClient(create_app(hash_service), raise_server_exceptions=False)


def test_home_serves_the_page(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    html = r.text
    assert '<html lang="pt-BR">' in html
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert 'href="/static/style.css"' in html and 'src="/static/app.js"' in html
    assert 'class="skip-link" href="#main"' in html and 'id="main"' in html
    assert 'aria-live="polite"' in html and '<label for="q"' in html
    # No network assets: every src/href is local (or a fragment, or a data: URL).
    for url in re.findall(r'(?:src|href)="([^"]*)"', html):
        assert url.startswith(("/", "#", "data:")), url


@pytest.mark.parametrize(
    ("path", "media"),
    [
        ("/static/app.js", "javascript"),
        ("/static/core.js", "javascript"),
        ("/static/i18n.js", "javascript"),
        ("/static/quiz.js", "javascript"),
        ("/static/answer.js", "javascript"),
        ("/static/cards.js", "javascript"),
        ("/static/docview.js", "javascript"),
        ("/static/errors.js", "javascript"),
        ("/static/labels.js", "javascript"),
        ("/static/sparql.js", "javascript"),
        ("/static/style.css", "text/css"),
        ("/static/index.html", "text/html"),
    ],
)
def test_static_files_load(client: TestClient, path: str, media: str) -> None:
    r = client.get(path)
    assert r.status_code == 200 and media in r.headers["content-type"]
    assert r.content == (STATIC / path.removeprefix("/static/")).read_bytes()


def test_every_error_code_is_worded_in_both_page_languages() -> None:
    """The page words each envelope code itself (api/static/errors.js ERROR_TEXT), pt and en,
    with only the params the code's description names; no code is worded that the API lacks."""
    from kb.errors import ERROR_CODES

    source = (STATIC / "errors.js").read_text("utf-8")
    table = source.split("const ERROR_TEXT = {", 1)[1].split("\n};", 1)[0]
    pt, en = (re.findall(r'^ {4}"?([\w.]+)"?: "', part, re.M) for part in table.split("\n  en: {"))
    assert set(pt) == set(en)
    assert {key.split(".")[0] for key in pt} == set(ERROR_CODES)
    placeholders = set(re.findall(r"\{(\w+)\}", table)) - {"field"}
    described = set(re.findall(r"\b(\w+)\b", " ".join(ERROR_CODES.values())))
    assert placeholders <= described, placeholders - described


def test_unknown_static_file_is_a_404_envelope(client: TestClient) -> None:
    r = client.get("/static/nope.js")
    assert r.status_code == 404
    assert r.json() == {"ok": False, "error": "Not Found", "status": 404, "code": "route_not_found"}


def test_document_page_is_the_same_html(client: TestClient) -> None:
    r = client.get("/doc/edison")
    assert r.status_code == 200 and r.text == client.get("/").text
    missing = client.get("/doc/no-such-doc")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("text/html")


def test_documents_return_the_exact_source_text(
    client: TestClient, documents: dict[str, str]
) -> None:
    for doc_id, text in documents.items():
        r = client.get(f"/documents/{doc_id}")
        assert r.status_code == 200
        body = r.json()
        assert body["id"] == doc_id and body["title"]
        assert body["text"] == text and body["length"] == len(text)
        assert body["format"] in ("edison", "tag", "general")


def test_citations_slice_the_served_document(client: TestClient) -> None:
    answer = client.post(
        "/ask", json={"question": "Julgamento Solene pode negar a Invocação do Dragão Cibernético?"}
    ).json()
    assert answer["citations"]
    texts: dict[str, str] = {}
    for c in answer["citations"]:
        if c["document"] not in texts:
            texts[c["document"]] = client.get(f"/documents/{c['document']}").json()["text"]
        assert texts[c["document"]][c["start"] : c["end"]] == c["text"]


def test_unknown_document_is_a_404_envelope_with_suggestions(client: TestClient) -> None:
    r = client.get("/documents/edisn")
    assert r.status_code == 404
    body = r.json()
    assert body["ok"] is False and body["status"] == 404
    assert "edisn" in body["error"] and body["suggestions"] == ["edison"]


def test_documents_outline_covers_rules_and_sections(
    client: TestClient, documents: dict[str, str]
) -> None:
    body = client.get("/documents").json()
    by_id = {d["id"]: d for d in body["documents"]}
    assert set(by_id) == set(documents)
    rules = [r for r in by_id["edison"]["outline"] if r["type"] == "Rule"]
    assert [r["number"] for r in rules] == list(range(1, 14))
    topic_ids = {t["id"] for t in body["topics"]}
    for doc in body["documents"]:
        assert "text" not in doc  # the list stays small: texts come one by one
        for row in doc["outline"]:
            assert row["type"] in ("Section", "Rule") and row["label"]
            node = client.get(f"/id/{row['id']}").json()
            assert node["span"] == {"document": doc["id"], "start": row["start"], "end": row["end"]}
            assert set(row["topics"]) <= topic_ids
    rule5 = next(r for r in rules if r["number"] == 5)
    assert "concept/trap-monster" in rule5["topics"]
    labels = {t["id"]: t["label_en"] for t in body["topics"]}
    assert labels["concept/trap-monster"] == "Trap Monster"


def test_catalog_lists_every_card_with_both_names(client: TestClient) -> None:
    cards = client.get("/catalog").json()["cards"]
    assert len(cards) == client.get("/stats").json()["cards"]
    jinzo = next(c for c in cards if c["id"] == "card/jinzo")
    assert jinzo == {
        "id": "card/jinzo",
        "label_pt": "Jinzo",
        "label_en": "Jinzo",
        "card_type": "monster",
    }
    assert all(c["label_en"] for c in cards)
    # A few hundred cards were never printed in Portuguese: the card data has no pt name for them.
    assert sum(bool(c["label_pt"]) for c in cards) >= len(cards) - 300


def test_script_never_inserts_markup() -> None:
    """Data reaches the page only as text: no innerHTML, outerHTML, insertAdjacentHTML, write()."""
    scripts = sorted(STATIC.glob("*.js"))
    assert {p.name for p in scripts} == {
        "answer.js",
        "app.js",
        "banlist.js",
        "cards.js",
        "deck.js",
        "core.js",
        "docview.js",
        "errors.js",
        "i18n.js",
        "labels.js",
        "quiz.js",
        "sparql.js",
        "training.js",
        "trainingchart.js",
        "trainingfeedback.js",
        "trainingfile.js",
        "trainingsession.js",
        "trainingstore.js",
    }
    for path in scripts:
        script = path.read_text("utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in script, f"{path.name}: {sink}"
        # Modules import each other relatively: nothing is fetched from another origin.
        for target in re.findall(r'from "([^"]+)"', script):
            assert target.startswith("./"), f"{path.name}: {target}"


def test_every_page_string_has_both_languages() -> None:
    html = (STATIC / "index.html").read_text("utf-8")
    script = (STATIC / "i18n.js").read_text("utf-8")
    keys = set(re.findall(r'data-i18n(?:-placeholder|-aria-label)?="([^"]+)"', html))
    assert keys
    for key in keys:
        quoted = f'"{key}":' if not re.fullmatch(r"\w+", key) else None
        found = script.count(quoted) if quoted else len(re.findall(rf"\b{key}:", script))
        assert found == 2, f"{key} should be defined once in pt and once in en"


def test_every_message_key_the_scripts_use_exists_in_both_languages() -> None:
    script = (STATIC / "i18n.js").read_text("utf-8")
    pt, en = script.split("\n  en: {", 1)
    used: set[str] = set()
    for path in STATIC.glob("*.js"):
        used |= set(re.findall(r'\bt\("([^"]+)"[,)]', path.read_text("utf-8")))
    assert {"answer.related", "error.request", "cards.range", "search.empty"} <= used
    for key in used:
        pattern = rf'(?m)^\s*(?:"{re.escape(key)}"|{re.escape(key)}):'
        assert re.search(pattern, pt), f"{key} has no Portuguese text"
        assert re.search(pattern, en), f"{key} has no English text"


def test_layout_blocks_are_ordered_spans_of_the_exact_text(client: TestClient) -> None:
    for doc in ("rulings", "edison", "tag"):
        text = client.get(f"/documents/{doc}").json()["text"]
        layout = client.get(f"/documents/{doc}/layout").json()
        assert layout["id"] == doc and layout["length"] == len(text)
        at = 0
        for block in layout["blocks"]:
            assert at <= block["start"] < block["end"] <= len(text), block
            assert text[at : block["start"]].strip() == ""  # nothing between blocks but space
            inner = block["start"]
            for s in block["sentences"]:
                assert inner <= s["start"] < s["end"] <= block["end"]
                inner = s["end"]
            at = block["end"]
        assert text[at:].strip() == ""
    rulings = client.get("/documents/rulings/layout").json()["blocks"]
    kinds = [b["kind"] for b in rulings]
    # The 10,000-character wall of 4 line breaks reads as headings, paragraphs and list items.
    assert kinds.count("heading") >= 10 and kinds.count("paragraph") >= 10 and "item" in kinds
    assert max(b["end"] - b["start"] for b in rulings if b["kind"] == "paragraph") < 1200
    text = client.get("/documents/rulings").json()["text"]
    headings = [text[b["start"] : b["end"]] for b in rulings if b["kind"] == "heading"]
    assert "Não-inerentes" in headings  # glued to the next word in the source ("Não-inerentesOs")


def test_unknown_document_layout_is_a_404(client: TestClient) -> None:
    r = client.get("/documents/nope/layout")
    assert r.status_code == 404 and r.json()["ok"] is False


def test_catalog_page_counts_and_pages_every_card(client: TestClient) -> None:
    total = client.get("/stats").json()["cards"]
    first = client.get("/catalog/page", params={"limit": 40}).json()
    second = client.get("/catalog/page", params={"limit": 40, "offset": 40}).json()
    assert (
        first["total"] == second["total"] >= total - 1
    )  # the table's cards (the KB's, bar tokens)
    assert len(first["cards"]) == len(second["cards"]) == 40
    assert not {c["id"] for c in first["cards"]} & {c["id"] for c in second["cards"]}
    found = client.get("/catalog/page", params={"q": "dragao cibernetico", "limit": 5}).json()
    assert found["q"] == "dragao cibernetico" and 1 <= found["total"] < 200
    assert "card/cyber-dragon" in {c["id"] for c in found["cards"]}
    traps = client.get("/catalog/page", params={"type": "trap", "limit": 100}).json()
    assert traps["total"] < first["total"] and {c["card_type"] for c in traps["cards"]} == {"trap"}
    dark = client.get("/catalog/page", params={"attribute": "dark", "q": "dragon"}).json()
    assert dark["attribute"] == "DARK" and {c["attribute"] for c in dark["cards"]} == {"DARK"}
    pool = client.get("/catalog/page", params={"format": "edison"}).json()
    assert 0 < pool["total"] < first["total"]
    by_en = client.get("/catalog/page", params={"lang": "en", "limit": 100}).json()["cards"]
    folded = [fold(c["name_en"]) for c in by_en]
    assert folded == sorted(folded) and by_en != first["cards"][:100]


def test_catalog_cards_carry_their_list_statuses_for_the_badges(client: TestClient) -> None:
    """`lists`: the card's status on each format's Forbidden & Limited list that names it, the
    same status as the format's /banlist."""
    found = client.get("/catalog/page", params={"q": "Pot of Greed", "limit": 1}).json()
    [pot] = found["cards"]
    listed = {f["id"] for f in client.get("/stats").json()["formats"] if f["banlist"]}
    assert pot["id"] == "card/pot-of-greed" and {m["format"] for m in pot["lists"]} <= listed
    for mark in pot["lists"]:
        banlist = client.get("/banlist", params={"format": mark["format"]}).json()
        key = mark["status"].replace("-", "_")
        assert pot["id"] in {c["id"] for c in banlist[key]}
    assert {"format": "edison", "status": "forbidden"} in pot["lists"]
    plain = client.get("/catalog/page", params={"q": "Sangan", "limit": 1, "format": "tag"})
    assert all(m["status"] != "forbidden" for m in plain.json()["cards"][0]["lists"])


def test_stats_say_which_formats_have_card_rules(client: TestClient) -> None:
    formats = {f["id"]: f for f in client.get("/stats").json()["formats"]}
    assert formats["edison"]["banlist"] and formats["edison"]["card_pool"]
    assert formats["general"]["deck_rules"] and not formats["general"]["banlist"]
    for fid, f in formats.items():
        status = client.get("/banlist", params={"format": fid}).status_code
        assert (status == 200) == f["banlist"], fid


@pytest.mark.parametrize(
    "params",
    [{"type": "potion"}, {"attribute": "PLAID"}, {"format": "nope"}, {"limit": 0},
     {"limit": 101}, {"offset": -1}, {"q": "x" * 1001}, {"lang": "fr"}],
)  # fmt: skip
def test_catalog_page_rejects_bad_parameters(client: TestClient, params: dict) -> None:
    r = client.get("/catalog/page", params=params)
    assert r.status_code == 422, r.text
    assert r.json()["ok"] is False and r.json()["error"]


def test_briefs_label_and_place_nodes(client: TestClient) -> None:
    ids = ["edison/rule-05/example-08", "concept/activation", "card/jinzo", "nope/nothing"]
    r = client.get("/briefs", params=[("id", i) for i in ids]).json()
    assert [n["id"] for n in r["nodes"]] == ids[:3] and r["missing"] == ["nope/nothing"]
    example, concept, _ = r["nodes"]
    text = client.get("/documents/edison").json()["text"]
    assert example["text"] == text[example["start"] : example["end"]]
    assert example["section"] == "edison/rule-05" and example["section_pt"]
    assert concept["label_pt"] == "Ativação" and concept["label_en"] == "Activation"
    too_many = client.get("/briefs", params=[("id", f"card/x{i}") for i in range(51)])
    assert too_many.status_code == 422
