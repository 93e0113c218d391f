"""Wiki pages: wikitext, Markdown and HTML of rules, sections and cards, escaped and sourced."""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app as cli_app
from kb.errors import InvalidQuery, NotFound
from kb.graph import KnowledgeGraph
from kb.model import Fact, Node, Span
from kb.presentation.icon import favicon_data_uri
from kb.presentation.markup import md_escape, to_html, to_markdown, to_wikitext, wiki_escape, write
from kb.presentation.render import PageBuilder
from kb.service import RulingsService

_NOWIKI = re.compile(r"<nowiki>.*?</nowiki>")
_REF = re.compile(r'<ref name="[^"]+">.*?</ref>')


def without_nowiki(text: str) -> str:
    return _NOWIKI.sub("TEXT", text)


def assert_balanced_wikitext(text: str) -> None:
    """Refs, nowiki, links and tables open and close; headings and table rows are well formed."""
    assert text.count("<nowiki>") == text.count("</nowiki>")
    bare = without_nowiki(text)
    opening = len(re.findall(r'<ref name="[^"]+">', bare))
    assert opening == bare.count("</ref>")
    assert opening + bare.count(" />") >= bare.count("<ref ")
    assert bare.count("{|") == bare.count("|}")
    outside_refs = _REF.sub("", bare)
    assert outside_refs.count("[") == outside_refs.count("]")
    assert "[[" not in outside_refs and "{{" not in outside_refs
    for line in bare.splitlines():
        if line.startswith("="):
            assert re.fullmatch(r"(={2,5}) \S.* \1", line), line
        if line.startswith("| ") and not line.startswith("|}"):
            # a data row "| key || value": exactly one cell separator, no stray pipe
            assert line.count("|") == 3 and "||" in line, line


# --- the real corpus -----------------------------------------------------------------------
def test_every_edison_rule_renders_balanced_wikitext(
    service: RulingsService, kg: KnowledgeGraph, documents: dict[str, str]
) -> None:
    rules = [r for r in kg.of_type("Rule") if r.span and r.span.document == "edison"]
    assert len(rules) == 13
    for rule in rules:
        text = service.render(rule.id, "wikitext")
        assert_balanced_wikitext(text)
        assert text.startswith(f"'''Regra #{rule.props['number']} — ")
        assert "Edison</span>" in text and "<references />" in text
        assert f"{service.settings.base_iri}id/{rule.id} " in text
        page = json.loads(service.render(rule.id, "json"))
        for ref in page["references"]:
            assert ref["text"] == documents[ref["document"]][ref["start"] : ref["end"]]
            assert ref["permalink"] == f"{service.settings.base_iri}id/{ref['id']}"
        cited = {r["id"] for r in page["references"]}
        examples = {f.subject for f in kg.into(rule.id, "example_of")}
        assert examples <= cited, rule.id


def test_every_page_renders_in_every_markup(service: RulingsService, kg: KnowledgeGraph) -> None:
    cards = kg.of_type("Card")
    curated = [n for n in cards if n.props.get("origin") != "carddb"]
    others = [n for n in cards if n.props.get("origin") == "carddb"]
    sample = others[::50]  # every 50th of the card database
    for node in [*kg.of_type("Document", "Rule", "Section"), *curated, *sample]:
        assert_balanced_wikitext(service.render(node.id, "wikitext"))
        assert service.render(node.id, "markdown").startswith("# ")
        html = service.render(node.id, "html")
        assert len(re.findall(r"<li[ >]", html)) == html.count("</li>") and "<script" not in html


def test_docs_example_is_real(service: RulingsService) -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "wiki.md").read_text("utf-8")
    wikitext = service.render("edison/rule-10", "wikitext").splitlines()
    for line in (wikitext[0], wikitext[2], wikitext[-4], "== Cards relacionados =="):
        assert line in page, line


def test_rule_page_has_examples_steps_and_related_cards(service: RulingsService) -> None:
    page = json.loads(service.render("edison/rule-07", "json"))
    headings = [p["heading"] for p in page["parts"]]
    assert headings == ["Texto", "Passos", "Exemplos", "Cards relacionados"]
    steps = next(p for p in page["parts"] if p["heading"] == "Passos")
    assert steps["ordered"] and len(steps["items"]) == 4
    cards = next(p for p in page["parts"] if p["heading"] == "Cards relacionados")
    links = {i["link"]["href"] for i in cards["items"]}
    assert f"{service.settings.base_iri}cards/sangan" in links
    assert page["badges"] == [{"format": "edison", "label": "Edison"}]


def test_markdown_of_a_tag_section(service: RulingsService) -> None:
    text = service.render("tag/turn-procedure", "markdown")
    assert text.startswith("# Procedimentos do Turno[^ygo-tag-turn-procedure-")
    assert "`Tag Duel`" in text
    assert "### Passos\n\n1. Equipe 1 Duelista 1A[^" in text
    assert "5. Equipe 1 Duelista 1A[^" in text
    assert "- \\*Prossiga até que uma das equipes vença" in text  # a leading * stays literal
    used = set(re.findall(r"\[\^([\w-]+)\](?!:)", text))
    defined = set(re.findall(r"^\[\^([\w-]+)\]:", text, re.M))
    assert used == defined and len(defined) >= 10


def test_rulings_section_nests_subsections(service: RulingsService) -> None:
    page = json.loads(service.render("rulings/special-summon", "json"))
    levels = [(p["heading"], p["level"]) for p in page["parts"]]
    assert ("Invocações-Especiais inerentes", 2) in levels
    assert ("Regras", 3) in levels
    assert page["badges"][0]["label"] == "Regras gerais"


def test_card_page_lists_examples_by_document(service: RulingsService) -> None:
    page = json.loads(service.render("card/jinzo", "json"))
    assert page["title"] == "Jinzo" and ("Nome (en)", "Jinzo") in map(tuple, page["facts"])
    cited = {r["id"] for r in page["references"]}
    assert {
        "edison/rule-05/example-02",
        "edison/rule-05/example-03",
        "edison/rule-05/example-04",
        "tag/basic-rules/example-07",
    } <= cited
    headings = [p["heading"] for p in page["parts"] if p["heading"] != "Regras da sua classe"]
    assert headings[1].startswith("Regras do Formato Edison") and "Tag Duel" in headings[-1]
    wikitext = service.render("card/jinzo", "wikitext")
    assert_balanced_wikitext(wikitext)
    assert "''Exemplo:''" in wikitext
    assert "Exemplo:" in service.render("card/cyber-dragon", "html")


def test_card_page_cites_its_summon_kind(service: RulingsService) -> None:
    page = json.loads(service.render("card/cyber-dragon", "json"))
    facts = next(p for p in page["parts"] if p["heading"] == "Fatos")
    summon = [i for i in facts["items"] if i["label"] == "Invocação"]
    assert len(summon) == 1 and "document" in summon[0]["text"] and summon[0]["ref"]


def test_unknown_ids_and_markups(service: RulingsService) -> None:
    with pytest.raises(NotFound) as missing:
        service.render("edison/rule-55")
    assert "edison/rule-05" in missing.value.suggestions
    with pytest.raises(InvalidQuery, match="as"):
        service.render("edison/rule-05", "pdf")
    with pytest.raises(InvalidQuery, match="edison/rule-05"):
        service.render("edison/rule-05/p-01")  # a passage: its section is named


# --- escaping, on a tiny graph ---------------------------------------------------------------
HOSTILE = (
    "<script>alert(\"x\")</script> a|b [[Link]] {{Template}} ''bold'' & &lt; "
    "__NOTOC__ ~~~~ [http://evil.example x]"
)


@pytest.fixture
def tiny() -> PageBuilder:
    title = "== Regra | <i>um</i> =="
    text = f"{title}\n* {HOSTILE}\n# Exemplo: {HOSTILE}\n"
    t0, p0, e0 = 0, len(title) + 1, text.index("# Exemplo")
    nodes = [
        Node("doc", "Document", "Doc <b>", span=Span("doc", 0, len(text))),
        Node(
            "doc/rule-01",
            "Rule",
            "Regra | <i>um</i>",
            text=title,
            span=Span("doc", t0, len(title)),
            parent="doc",
            props={"number": 1},
        ),
        Node(
            "doc/rule-01/p-01",
            "Passage",
            text=text[p0 : e0 - 1],
            span=Span("doc", p0, e0 - 1),
            parent="doc/rule-01",
            props={"kind": "bullet"},
        ),
        Node(
            "doc/rule-01/example-01",
            "Example",
            text=text[e0 : len(text) - 1],
            span=Span("doc", e0, len(text) - 1),
            parent="doc/rule-01",
        ),
        Node("card/bad", "Card", '<b>Bad|Card</b> "q"', "Bad [[Card]]", props={"race": "a||b"}),
    ]
    facts = [
        Fact("doc/rule-01/p-01", "mentions", "card/bad", "doc/rule-01/p-01", "document"),
        Fact("doc/rule-01/example-01", "example_of", "doc/rule-01", None, "document"),
    ]
    kg = KnowledgeGraph(nodes, facts)
    return PageBuilder(kg, {"doc": text}, {"doc": "edison"}, "https://example.org/kb/")


def test_html_escapes_injected_markup(tiny: PageBuilder) -> None:
    html = to_html(tiny.page(tiny.kg.node("doc/rule-01")))
    assert "<script" not in html and "&lt;script&gt;" in html
    assert "<i>um</i>" not in html and "<b>Bad" not in html
    # self-contained: no scripts, nothing loaded but an inline icon
    assert "src=" not in html
    assert re.findall(r"<link [^>]*>", html) == [
        f'<link rel="icon" href="{escape(favicon_data_uri())}" type="image/svg+xml">'
    ]
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    card = to_html(tiny.page(tiny.kg.node("card/bad")))
    assert "&lt;b&gt;Bad|Card&lt;/b&gt; &quot;q&quot;" in card


def test_wikitext_escapes_source_text(tiny: PageBuilder) -> None:
    for node_id in ("doc/rule-01", "card/bad"):
        text = to_wikitext(tiny.page(tiny.kg.node(node_id)))
        assert_balanced_wikitext(text)
        bare = without_nowiki(text)
        for hostile in ("<script", "[[", "{{", "__NOTOC__", "~~~~", "a|b", "<i>", "<b>"):
            assert hostile not in bare, (node_id, hostile)
    card = to_wikitext(tiny.page(tiny.kg.node("card/bad")))
    assert "| Tipo de monstro || <nowiki>a||b</nowiki>" in card


def test_markdown_escapes_source_text(tiny: PageBuilder) -> None:
    text = to_markdown(tiny.page(tiny.kg.node("doc/rule-01")))
    assert "<script>" not in text and "\\<script\\>" in text
    assert "\\[\\[Link\\]\\]" in text and "a\\|b" in text
    card = to_markdown(tiny.page(tiny.kg.node("card/bad")))
    assert "| Tipo de monstro | a\\|\\|b |" in card


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("plain text, no markup", "plain text, no markup"),
        ("a|b", "<nowiki>a|b</nowiki>"),
        ("x < y & z", "<nowiki>x &lt; y &amp; z</nowiki>"),
        ("* starts a list", "<nowiki>* starts a list</nowiki>"),
        ("</nowiki>[[x]]", "<nowiki>&lt;/nowiki&gt;[[x]]</nowiki>"),
    ],
)
def test_wiki_escape(raw: str, escaped: str) -> None:
    assert wiki_escape(raw) == escaped


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("- not a list", "\\- not a list"),
        ("1. not a list", "1\\. not a list"),
        ("# not a heading", "\\# not a heading"),
        ("*a* _b_ `c` <d> [e](f) &g", "\\*a\\* \\_b\\_ \\`c\\` \\<d\\> \\[e\\](f) &amp;g"),
    ],
)
def test_md_escape(raw: str, escaped: str) -> None:
    assert md_escape(raw) == escaped


def test_write_rejects_unknown_markup(tiny: PageBuilder) -> None:
    with pytest.raises(ValueError):
        write(tiny.page(tiny.kg.node("doc/rule-01")), "pdf")


# --- the edges: HTTP and CLI -----------------------------------------------------------------
@pytest.fixture(scope="module")
def client(service: RulingsService) -> TestClient:
    return TestClient(create_app(service), raise_server_exceptions=False)


def test_rule_and_card_routes(client: TestClient, service: RulingsService) -> None:
    r = client.get("/rules/edison/rule-05", params={"as": "html"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert r.text == service.render("edison/rule-05", "html")
    wiki = client.get("/rules/edison/rule-05")
    assert wiki.headers["content-type"].startswith("text/plain") and "== Exemplos ==" in wiki.text
    md = client.get("/cards/jinzo", params={"as": "markdown"})
    assert md.headers["content-type"].startswith("text/markdown")
    assert md.text == client.get("/cards/card/jinzo", params={"as": "markdown"}).text


@pytest.mark.parametrize(
    ("url", "status", "needle"),
    [
        ("/rules/edison/rule-55", 404, "edison/rule-05"),
        ("/cards/zzjinzo", 404, "card/jinzo"),  # "jinz" is a typo the card search resolves
        ("/rules/edison/rule-05?as=pdf", 422, "as"),
        ("/cards/jinzo?as=", 422, "as"),
        ("/rules/edison/rule-05/p-01", 422, "Passage"),
    ],
)
def test_route_errors_are_envelopes(client: TestClient, url: str, status: int, needle: str) -> None:
    r = client.get(url)
    assert r.status_code == status
    body = r.json()
    assert body["ok"] is False and body["status"] == status and needle in r.text
    if status == 404:
        assert body["suggestions"]


def test_cli_render(data_copy: Path, corpus_dir: Path) -> None:
    where = ["--data", str(data_copy), "--corpus", str(corpus_dir)]
    result = CliRunner().invoke(
        cli_app, ["render", "tag/turn-procedure", "--as", "markdown", *where]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# Procedimentos do Turno")
    bad = CliRunner().invoke(cli_app, ["render", "edison/rule-05", "--as", "pdf", *where])
    assert bad.exit_code == 2


def test_a_card_no_document_names_lists_the_rules_of_its_classes(
    service: RulingsService, kg: KnowledgeGraph
) -> None:
    """A Union monster of the card database: the Union rule; a Counter Trap: its Damage Step
    bullet; each cited with an exact span."""
    unions = [
        f.subject
        for f in kg.into("concept/union-monster", "instance_of")
        if kg.node(f.subject).props.get("origin") == "carddb"
    ]
    if not unions:
        pytest.skip("no card table in this build")
    page = json.loads(service.render(unions[0], "json"))
    part = next(p for p in page["parts"] if p["heading"] == "Regras da sua classe")
    union = next(i for i in part["items"] if i["text"] == "Monstro Union")
    cited = {r["id"] for r in page["references"]}
    assert "edison/rule-03/p-02" in cited and union["children"]
    for ref in page["references"]:
        assert service.artifact.documents[ref["document"]][ref["start"] : ref["end"]] == ref["text"]
    counter = json.loads(service.render("card/solemn-judgment", "json"))
    classes = next(p for p in counter["parts"] if p["heading"] == "Regras da sua classe")
    assert any(i["text"] == "Etapa de Dano" for i in classes["items"])
