"""Card data everywhere it is read: RDF and SPARQL, compacted JSON-LD with its served context,
the wiki infobox (pt and en, the node view's translations), the F&L list sections' cards, and
card names in /cards/{name}."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient
from rdflib import Literal
from rdflib.compare import isomorphic
from rdflib.namespace import RDFS, XSD
from tests_support import REPO, jsonld_graph  # type: ignore[import-not-found]

from api.app import create_app
from kb.cards.table import CardRecord, parse_table
from kb.config import Settings
from kb.formats import BanlistSpec, Formats, FormatSpec
from kb.graph import KnowledgeGraph
from kb.linked_data.jsonld import context
from kb.linked_data.rdf import namespaces, serialize, to_rdf, vocabulary
from kb.linked_data.vocab import CARD_DATA
from kb.model import Node
from kb.presentation.codes import CODES_FILE, field_value, label
from kb.service import RulingsService

BASE = Settings().base_iri
RES, VOC, _ = namespaces(BASE)


@pytest.fixture(scope="module")
def table() -> list[CardRecord]:
    """The card table itself, read apart from the build."""
    return parse_table((REPO / "corpus" / "carddb" / "cards.tsv").read_text("utf-8"))[1]


@pytest.fixture(scope="module")
def edison() -> dict[str, Any]:
    """The manifest's Edison declaration, read apart from the build."""
    manifest = yaml.safe_load((REPO / "corpus" / "manifest.yaml").read_text("utf-8"))
    return next(f for f in manifest["formats"] if f["id"] == "edison")


@pytest.fixture(scope="module")
def client(service: RulingsService) -> TestClient:
    return TestClient(create_app(service), raise_server_exceptions=False)


# --- RDF -------------------------------------------------------------------------------------


def small_graph() -> KnowledgeGraph:
    spec = FormatSpec(
        "edison",
        "Formato Edison",
        "Edison Format",
        card_pool="edison_pool",
        banlist=BanlistSpec("tcg_2010_03", "2010-03-01", "a list"),
    )
    card = Node(
        "card/x",
        "Card",
        label_pt="X pt",
        label_en="X",
        props={
            "card_type": "monster",
            "attribute": "DARK",
            "race": "Dragon",
            "type_line": "Dragon / Effect",
            "level": 7,
            "atk": 2800,
            "defense": 1000,
            "password": 65192027,
            "first_tcg_date": "2008-02-13",
            "edison_pool": True,
            "tcg_2010_03": 1,
        },
    )
    plain = Node("card/y", "Card", label_en="Y", props={"card_type": "spell"})
    return KnowledgeGraph([card, plain, *Formats((spec,)).nodes()], [])


def test_a_card_carries_its_card_data_and_list_status() -> None:
    g = to_rdf(small_graph(), BASE)
    x = RES["card/x"]
    for prop, value in [
        ("attribute", Literal("DARK")),
        ("race", Literal("Dragon")),
        ("typeLine", Literal("Dragon / Effect")),
        ("level", Literal(7, datatype=XSD.integer)),
        ("atk", Literal(2800, datatype=XSD.integer)),
        ("def", Literal(1000, datatype=XSD.integer)),
        ("password", Literal(65192027, datatype=XSD.integer)),
        ("firstTcgDate", Literal("2008-02-13", datatype=XSD.date)),
        ("inCardPoolOf", RES["format/edison"]),
        ("limitedIn", RES["format/edison"]),
    ]:
        assert (x, VOC[prop], value) in g, prop
    assert (x, VOC.forbiddenIn, None) not in g and (x, VOC.rank, None) not in g
    assert not set(g.predicate_objects(RES["card/y"])) & {
        (VOC.inCardPoolOf, RES["format/edison"]),
        (VOC.limitedIn, RES["format/edison"]),
    }
    assert isomorphic(jsonld_graph(serialize(g, "jsonld", BASE)), g)


def test_the_card_properties_are_declared_with_pt_and_en_labels() -> None:
    vocab = vocabulary(BASE)
    for term in CARD_DATA:
        labels = {o.language: str(o) for o in vocab.objects(VOC[term.name], RDFS.label)}
        assert labels.keys() == {"pt", "en"} and all(labels.values()), term.name
    assert (VOC.atk, RDFS.range, XSD.integer) in vocab
    assert (VOC.limitedIn, RDFS.range, VOC.Format) in vocab


def test_a_password_is_shown_with_its_leading_zeros() -> None:
    """A password is an 8-digit code (the RDF keeps the integer): 423705 is shown 00423705."""
    assert field_value("password", 423705) == "00423705"
    assert field_value("password", 89631139, "en") == "89631139"
    assert field_value("atk", 500) == "500"  # other numbers as they are


def test_sparql_finds_the_dark_level_7_monsters_limited_in_edison(
    service: RulingsService, table: list[CardRecord], edison: dict[str, Any]
) -> None:
    """Through the built Oxigraph store, against the card table read here."""
    field, pool = edison["banlist"]["field"], edison["card_pool"]
    expected = {
        r.id
        for r in table
        if r.attribute == "DARK" and (r.level or 0) >= 7 and getattr(r, field) == 1
    }
    assert expected and all(getattr(r, pool) for r in table if r.id in expected)
    query = f"""
        SELECT ?card WHERE {{
          ?card a ygo:Card ; ygo:attribute "DARK" ; ygo:level ?level ;
                ygo:limitedIn <{RES["format/edison"]}> .
          FILTER (?level >= 7)
        }}"""
    body, _ = service.sparql(query)
    found = {b["card"]["value"] for b in json.loads(body)["results"]["bindings"]}
    assert found == {str(RES[i]) for i in expected}


# --- JSON-LD ---------------------------------------------------------------------------------


def test_the_context_is_served_and_named_by_id_and_export(client: TestClient) -> None:
    r = client.get("/context.jsonld")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/ld+json")
    terms = r.json()["@context"]
    assert terms["ygo"] == str(VOC) and terms["atk"] == {"@id": "ygo:atk"}
    assert terms["limitedIn"] == {"@id": "ygo:limitedIn", "@type": "@id"}
    assert terms["prefLabel"] == {"@id": "skos:prefLabel", "@container": "@language"}
    assert r.headers["access-control-allow-origin"] == "*"
    doc = client.get("/id/card/dark-armed-dragon", params={"as": "jsonld"}).json()
    assert doc["@context"] == BASE + "context.jsonld" == context(BASE).url
    card = next(n for n in doc["@graph"] if n["@id"] == "kb:card/dark-armed-dragon")
    assert card["@type"] == "Card" and card["attribute"] == "DARK" and card["level"] == 7
    assert card["atk"] == 2800 and card["limitedIn"] == "kb:format/edison"
    assert card["prefLabel"] == {"pt": "Dragão Negro Armado", "en": "Dark Armed Dragon"}


def test_the_id_json_carries_the_card_data(client: TestClient) -> None:
    props = client.get("/id/card/dark-armed-dragon").json()["props"]
    assert props["attribute"] == "DARK" and props["level"] == 7
    assert props["atk"] == 2800 and props["defense"] == 1000 and props["password"] == 65192027
    assert props["first_tcg_date"] == "2008-02-13" and props["tcg_2010_03"] == 1


# --- the wiki infobox ------------------------------------------------------------------------


def infobox(wikitext: str) -> dict[str, str]:
    table = wikitext.split('{| class="wikitable"', 1)[1].split("|}", 1)[0]
    return dict(re.findall(r"^\| (.+?) \|\| (.+)$", table, re.M))


def test_the_infobox_shows_the_card_data_in_the_pages_language(client: TestClient) -> None:
    pt = infobox(client.get("/cards/dark-armed-dragon").text)
    assert pt["Atributo"] == "TREVAS" and pt["Tipo de card"] == "Monstro"
    assert pt["Nível"] == "7" and pt["ATK"] == "2800" and pt["DEF"] == "1000"
    assert pt["Senha"] == "65192027" and pt["Lançamento no TCG"] == "2008-02-13"
    assert pt["Linha de tipo"] == "Dragon / Effect" and pt["Invocação-Especial"] == "inerente"
    assert pt["Lista (Edison)"] == "Limitado"
    en = infobox(client.get("/cards/dark-armed-dragon", params={"lang": "en"}).text)
    assert en["Attribute"] == "DARK" and en["Card type"] == "Monster" and en["Level"] == "7"
    assert en["Special Summon"] == "inherent" and en["List (Edison)"] == "Limited"
    html = client.get("/cards/dark-armed-dragon", params={"as": "html"}).text
    assert "<th>Atributo</th><td>TREVAS</td>" in html


def test_the_node_view_and_the_wiki_read_one_table(client: TestClient) -> None:
    r = client.get("/static/codes.json")
    assert r.status_code == 200 and r.content == CODES_FILE.read_bytes()
    script = (REPO / "api" / "static" / "labels.js").read_text("utf-8")
    assert "/static/codes.json" in script and "TREVAS" not in script and "Inerente" not in script
    assert label("attribute", "DARK") == "TREVAS" and label("attribute", "DARK", "en") == "DARK"


def test_an_unknown_page_language_is_refused(client: TestClient) -> None:
    r = client.get("/cards/jinzo", params={"lang": "fr"})
    assert r.status_code == 422 and r.json()["field"] == "lang"


# --- the F&L list sections -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("section", "key"),
    [("forbidden", "forbidden"), ("limited", "limited"), ("semi-limited", "semi_limited")],
)
def test_a_list_section_lists_its_cards_from_the_card_data(
    client: TestClient, table: list[CardRecord], edison: dict[str, Any], section: str, key: str
) -> None:
    listed = client.get("/banlist", params={"format": "edison"}).json()[key]
    field = edison["banlist"]["field"]
    status = {"forbidden": 0, "limited": 1, "semi_limited": 2}[key]
    assert {c["id"] for c in listed} == {r.id for r in table if getattr(r, field) == status}
    text = client.get(f"/rules/edison/fl/{section}").text
    linked = re.findall(r"\[https://w3id\.org/ygo-rulings/cards/([^ ]+) ", text)
    assert linked == [c["id"].removeprefix("card/") for c in listed]
    for card in listed:
        assert f"Senha {card['password']:08d}" in text, card["id"]  # its 8 digits
    assert f"{field} (2010-03-01)" in text and "corpus/carddb/cards.tsv" in text
    html = client.get(f"/rules/edison/fl/{section}", params={"as": "html"}).text
    assert html.count('href="/cards/') >= len(listed)


def test_the_list_sections_stay_in_their_parent_page(client: TestClient) -> None:
    text = client.get("/rules/edison/fl").text
    assert "Cards — Proibido (45;" in text and "Cards — Limitado (70;" in text


# --- /cards/{name} ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("Dark Armed Dragon", 308),
        ("Dragão Negro Armado", 308),
        ("dragao negro armado", 308),
        ("65192027", 308),
        ("Dark Armd Dragon", 307),
    ],
)
def test_a_card_name_redirects_to_its_page(client: TestClient, name: str, status: int) -> None:
    r = client.get(f"/cards/{name}", params={"as": "html"}, follow_redirects=False)
    assert r.status_code == status
    assert r.headers["location"] == "/cards/dark-armed-dragon?as=html"
    assert client.get(f"/cards/{name}").text.startswith("'''Dragão Negro Armado'''")


def test_an_unknown_card_name_is_a_404_with_real_suggestions(
    client: TestClient, service: RulingsService
) -> None:
    r = client.get("/cards/dark armed")
    body = r.json()
    assert r.status_code == 404 and body["ok"] is False and body["status"] == 404
    assert body["suggestions"][0] == "card/dark-armed-dragon"
    for suggested in body["suggestions"]:
        node = service.kg.get(suggested)
        assert node is not None and node.type == "Card"
