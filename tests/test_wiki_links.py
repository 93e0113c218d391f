"""Wiki pages for pasting and for browsing: reference names, readable sources, link styles,
page-name templates, local navigation and the favicon.

Over the KB without the card table (`lite_service`): the curated cards the documents name are
enough for rule and card pages, and it builds in a fraction of the full KB's time.
"""

from __future__ import annotations

import json
import re
import struct
import xml.etree.ElementTree as ET
from collections import defaultdict
from urllib.parse import urlsplit

import mwparserfromhell
import pytest
import wikitextparser
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from api.app import create_app
from kb.errors import InvalidQuery
from kb.presentation.icon import ICO_SIZES, favicon_ico, favicon_svg, pixels
from kb.presentation.links import (
    TEMPLATE_FIELDS,
    check_template,
    link_style,
    page_name,
    ref_name,
)
from kb.service import RulingsService

IRI = "https://w3id.org/ygo-rulings/"
# A rule page and a card page that cite some of the same examples (Jinzo's rule 5 examples).
SHARED_PAIR = ("edison/rule-05", "card/jinzo")


@pytest.fixture(scope="module")
def client(lite_service: RulingsService) -> TestClient:
    return TestClient(create_app(lite_service), raise_server_exceptions=False)


# --- reference names -----------------------------------------------------------------------
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789/-_.", min_size=1, max_size=60))
def test_ref_names_are_stable_and_safe(node_id: str) -> None:
    name = ref_name(node_id)
    assert name == ref_name(node_id)
    assert re.fullmatch(r"ygo-[a-z0-9-]+", name)  # a <ref name>, a footnote label, an HTML id
    assert not name.isdigit()


@given(st.from_regex(r"[a-z]{1,8}(/[a-z0-9]{1,8}){0,3}", fullmatch=True))
def test_ids_that_slug_alike_get_different_names(node_id: str) -> None:
    lookalike = node_id.replace("/", "-")
    if lookalike != node_id:
        assert ref_name(lookalike) != ref_name(node_id)


def test_every_node_of_the_kb_has_its_own_ref_name(lite_service: RulingsService) -> None:
    ids = [n.id for n in lite_service.kg.nodes]
    assert len({ref_name(i) for i in ids}) == len(ids)


def test_a_node_has_the_same_reference_on_every_page(lite_service: RulingsService) -> None:
    pages = [json.loads(lite_service.render(node_id, "json")) for node_id in SHARED_PAIR]
    by_id = [{r["id"]: r for r in page["references"]} for page in pages]
    shared = set(by_id[0]) & set(by_id[1])
    assert {"edison/rule-05/example-02", "edison/rule-05/example-03"} <= shared
    for node_id in shared:
        assert by_id[0][node_id] == by_id[1][node_id]
        assert by_id[0][node_id]["name"] == ref_name(node_id)


def ref_tags_mwparser(text: str) -> list[tuple[str, str | None]]:
    """(name, content or None for a `<ref name=… />` reuse) of every ref, by mwparserfromhell."""
    code = mwparserfromhell.parse(text)
    out = []
    for tag in code.filter_tags(matches=lambda node: node.tag == "ref"):
        name = str(tag.get("name").value).strip()
        out.append((name, None if tag.self_closing else str(tag.contents)))
    return out


def ref_tags_wtp(text: str) -> list[tuple[str, str | None]]:
    """The same, by wikitextparser."""
    out = []
    for tag in wikitextparser.parse(text).get_tags("ref"):
        name = tag.get_attr("name")
        assert name is not None
        out.append(
            (name, None if tag.contents is None or tag.string.endswith("/>") else tag.contents)
        )
    return out


@pytest.mark.parametrize("links", ["iri", "wiki"])
@pytest.mark.parametrize("parse", [ref_tags_mwparser, ref_tags_wtp], ids=["mwparser", "wtp"])
def test_two_pages_pasted_into_one_article_do_not_collide(
    lite_service: RulingsService, parse: object, links: str
) -> None:
    pages = [lite_service.render(node_id, "wikitext", links) for node_id in SHARED_PAIR]
    merged = "\n".join(pages)
    refs = parse(merged)  # type: ignore[operator]
    contents: dict[str, set[str]] = defaultdict(set)
    for name, content in refs:
        if content is not None:
            contents[name].add(content)
    assert contents and all(len(c) == 1 for c in contents.values())  # same name, same content
    assert {name for name, _ in refs} == set(contents)  # every reuse names a defined ref
    # different nodes, different names: each name's content is one node's permalink
    node_of = {}
    for name, (content,) in contents.items():
        (permalink,) = re.findall(re.escape(IRI) + r"id/(\S+)", content)
        node_of[name] = permalink
        assert name == ref_name(permalink)
    assert len(set(node_of.values())) == len(node_of)
    first, second = ({n for n, _ in parse(p)} for p in pages)  # type: ignore[operator]
    assert first & second  # the shared examples: one name on both pages


def test_references_read_as_sources(lite_service: RulingsService) -> None:
    page = json.loads(lite_service.render("card/jinzo", "json"))
    ref = next(r for r in page["references"] if r["id"] == "edison/rule-05/example-02")
    assert ref["document_title"] == "Regras do Formato Edison"
    assert ref["section"].startswith("Regra #5 — ")
    assert ref["section_link"]["href"] == IRI + "rules/edison/rule-05"
    wikitext = lite_service.render("card/jinzo", "wikitext")
    (content,) = set(re.findall(rf'<ref name="{ref["name"]}">(.*?)</ref>', wikitext))
    readable, small = content.split("<small", 1)
    assert readable.startswith("''Regras do Formato Edison'' › [" + IRI + "rules/edison/rule-05 ")
    assert readable.rstrip().endswith(IRI + "id/edison/rule-05/example-02")
    assert not re.search(r"\d+[–-]\d+", readable)  # the offsets come after, small
    start, end = ref["start"], ref["end"]
    assert f'data-start="{start}" data-end="{end}">edison {start}–{end}</small>' in small
    markdown = lite_service.render("card/jinzo", "markdown")
    line = next(x for x in markdown.splitlines() if x.startswith(f"[^{ref['name']}]: "))
    assert line.endswith(f"<{IRI}id/edison/rule-05/example-02> <sub>edison {start}–{end}</sub>")
    assert "*Regras do Formato Edison* › [Regra #5 — " in line


# --- links=wiki ------------------------------------------------------------------------------
def test_wiki_links_follow_the_templates(lite_service: RulingsService) -> None:
    text = lite_service.render(
        "edison/rule-10",
        "wikitext",
        links="wiki",
        template="Card Rulings:{name_en}",
        rule_template="Edison/Regra {number}",
    )
    assert "* [[Card Rulings:Mirror Wall|Parede Espelhada]] (en: Mirror Wall)" in text
    assert "[[Edison/Regra 10|Regra #10 — Custos de Pontos de Vida]]" in text  # in the refs
    code = mwparserfromhell.parse(text)
    titles = {str(link.title) for link in code.filter_wikilinks()}
    assert titles == {
        "Card Rulings:Mirror Wall",
        "Card Rulings:Degenerate Circuit",
        "Edison/Regra 10",
    }
    assert {str(w.title) for w in wikitextparser.parse(text).wikilinks} == titles
    assert "[https://w3id.org/ygo-rulings/cards/" not in text  # no external page links left
    assert f"{IRI}id/edison/rule-10/p-01 " in text  # permalinks stay the public IRI
    card = lite_service.render("card/jinzo", "markdown", links="wiki")  # default templates
    assert "[[Regras do Formato Edison/Regra 5 — Bloqueio de Zona" in card
    assert "[[Visão Geral das Regras de Tag Dueling/Regras Básicas|Regras Básicas]]" in card


def test_wiki_link_defaults_and_json(lite_service: RulingsService) -> None:
    page = json.loads(lite_service.render("edison/rule-10", "json", links="wiki"))
    cards = next(p for p in page["parts"] if p["heading"] == "Cards relacionados")
    assert cards["items"][0]["link"] == {
        "text": "Parede Espelhada",
        "href": "Parede Espelhada",
        "wiki": True,
    }


@pytest.mark.parametrize(
    ("fields", "template", "name"),
    [
        ({"name_en": "Nekogal #1"}, "{name_en}", "Nekogal 1"),
        ({"name_en": "a [b] {c} | d"}, "Cards:{name_en}", "Cards:a b c d"),
        (
            {"title": "Regra #5 — X", "document": "edison"},
            "{document}/{title}",
            "edison/Regra 5 — X",
        ),
        ({"number": "", "document": "tag"}, "Regras:{document}/{number}", "Regras:tag"),
        ({"number": ""}, "{number}", "the-id"),
    ],
)
def test_page_names_are_legal_titles(fields: dict[str, str], template: str, name: str) -> None:
    assert page_name(check_template("template", template), {"id": "the-id", **fields}) == name


@pytest.mark.parametrize(
    ("template", "needle"),
    [
        ("Card Rulings:{nome}", "unknown field 'nome'"),
        ("{name_en", "bad braces"),
        ("Cards}", "bad braces"),
        ("{}", "a field without a name"),
        ("{0}", "unknown field '0'"),
        ("{id.real}", "unknown field 'id.real'"),
        ("{name_en!r}", "field 'name_en'"),
        ("{name_en:>20}", "field 'name_en'"),
        ("Cards#{name_en}", "'#'"),
        ("{{name_en}}", "'{'"),
        ("Card Rulings", "names no field"),
    ],
)
def test_bad_templates_are_422_naming_the_field(
    client: TestClient, template: str, needle: str
) -> None:
    for param in ("template", "rule_template"):
        r = client.get("/cards/jinzo", params={"links": "wiki", param: template})
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["ok"] is False and body["error"].startswith(f"{param}: ")
        assert needle in body["error"]
    with pytest.raises(InvalidQuery) as exc:
        check_template("template", template)
    assert exc.value.field == "template"


def test_unknown_field_error_lists_the_fields() -> None:
    with pytest.raises(InvalidQuery) as exc:
        check_template("template", "{nome}")
    assert all("{" + f + "}" in exc.value.reason for f in TEMPLATE_FIELDS)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"links": "bogus"}, "links"),
        ({"as": "html", "links": "wiki"}, "links"),
        ({"as": "wikitext", "links": "local"}, "links"),
        ({"template": "{name_en}"}, "template"),  # only with links=wiki
        ({"links": "iri", "rule_template": "{title}"}, "rule_template"),
    ],
)
def test_link_parameters_are_checked(
    client: TestClient, params: dict[str, str], field: str
) -> None:
    r = client.get("/rules/edison/rule-10", params=params)
    assert r.status_code == 422 and r.json()["error"].startswith(f"{field}: ")


def test_routes_render_what_the_service_renders(
    client: TestClient, lite_service: RulingsService
) -> None:
    params = {"links": "wiki", "template": "Card Rulings:{name_en}", "rule_template": "R:{id}"}
    r = client.get("/rules/edison/rule-10", params=params)
    assert r.status_code == 200
    assert r.text == lite_service.render(
        "edison/rule-10", "wikitext", "wiki", "Card Rulings:{name_en}", "R:{id}"
    )
    md = client.get("/cards/jinzo", params={**params, "as": "markdown"})
    assert "[[R:edison/rule-05|Regra #5 — " in md.text


# --- html: served pages navigate locally -----------------------------------------------------
def hrefs(html: str) -> list[str]:
    return [h.replace("&amp;", "&") for h in re.findall(r'<a [^>]*href="([^"]*)"', html)]


@pytest.mark.parametrize("node_id", ["edison/rule-05", "card/jinzo", "rulings/special-summon"])
def test_served_html_links_stay_local_but_show_permalinks(
    client: TestClient, lite_service: RulingsService, node_id: str
) -> None:
    html = lite_service.render(node_id, "html")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert '<a class="home" href="/">' in html
    assert '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' in html
    assert '<link rel="icon" href="/favicon.ico"' in html
    links = hrefs(html)
    public = [h for h in links if h.startswith("https://")]
    assert public and all(h.startswith(IRI + "id/") for h in public)  # permalinks only
    for h in public:
        assert f">{h}</a>" in html  # shown as the IRI itself
    local = [h for h in links if not h.startswith(("https://", "#"))]
    assert any(h.startswith("/doc/") for h in local)  # references open the document view
    for h in dict.fromkeys(local):
        assert h.startswith("/"), h
        url = urlsplit(h)
        target = url.path + (f"?{url.query}" if url.query else "")
        assert client.get(target).status_code == 200, h
    anchors = {h[1:] for h in links if h.startswith("#")}
    assert anchors and all(f'id="{a}"' in html for a in anchors)


def test_iri_html_is_self_contained(lite_service: RulingsService) -> None:
    html = lite_service.render("edison/rule-05", "html", links="iri")
    assert '<link rel="icon" href="data:image/svg+xml,' in html and "/favicon" not in html
    assert all(h.startswith((IRI, "#")) for h in hrefs(html))
    assert "abrir no documento" not in html  # references open their permalink


# --- the favicon -----------------------------------------------------------------------------
def test_favicon_routes(client: TestClient) -> None:
    ico = client.get("/favicon.ico")
    assert ico.status_code == 200 and ico.headers["content-type"] == "image/x-icon"
    data = ico.content
    assert data == favicon_ico()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind, count) == (0, 1, len(ICO_SIZES))
    for i, size in enumerate(ICO_SIZES):
        w, h, _, _, planes, bits, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * i : 22 + 16 * i]
        )
        assert (w, h, planes, bits) == (size, size, 1, 32)
        image = data[offset : offset + length]
        assert image.startswith(b"\x89PNG\r\n\x1a\n")
        assert struct.unpack(">II", image[16:24]) == (size, size)
    svg = client.get("/favicon.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(svg.text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and svg.text == favicon_svg()
    assert '<link rel="icon" href="/favicon.svg"' in client.get("/").text


def test_favicon_pixels_follow_the_shapes() -> None:
    grid = pixels(32)
    assert grid[0][0][3] == 0  # the tile's rounded corner is transparent
    assert grid[1][16] == (0x22, 0x33, 0x44, 255)  # the tile above the card
    assert grid[12][16] == (0xF2, 0xC1, 0x4E, 255)  # the sun in the card's art box
    assert grid[9][11] == (0x22, 0x33, 0x44, 255)  # the art box


def test_link_style_defaults() -> None:
    assert link_style("html", IRI).style == "local"
    assert link_style("wikitext", IRI).style == "iri"
    assert link_style("json", "https://example.org/kb").base == "https://example.org/kb/"
