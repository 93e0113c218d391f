"""The card routes through the ASGI app (GET /cards, GET /cards/{id}/legality, GET /banlist,
POST /deck/validate) and the CLI commands printing the same JSON; bad input is a 4xx envelope,
never a 500.

The service is the session's (real graph and formats, hash embedder) with its card half over the
hand-made records of test_banlist, so these tests do not depend on the card-facts table; the last
tests use the real one and skip without it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest
from cards.test_banlist import CARD_TABLE, sample_records
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app as cli_app
from kb.cards.service import CardService
from kb.formats import FormatSpec
from kb.service import RulingsService

DECKS = Path(__file__).parent / "data" / "decks"
FILLER = [f"Plain Monster {i:02d}" for i in range(1, 41)]
runner = CliRunner()


def deck_text(main: list[str], side: list[str] = ()) -> str:  # type: ignore[assignment]
    return "\n".join(["Main:", *main, "Side:", *side])


@pytest.fixture(scope="module")
def svc(hash_service: RulingsService) -> RulingsService:
    """The session service with its card half over the sample records (a shallow copy: the
    session's own service keeps its real card data)."""
    records = [
        dataclasses.replace(
            r, tcg_current={"Heavy Storm": 0, "Pot of Greed": 0}.get(r.name_en, r.tcg_2010_03)
        )
        for r in sample_records()
    ]
    service = copy.copy(hash_service)
    service.__dict__["card_service"] = CardService(
        records, hash_service.formats, hash_service.kg, max_k=50, max_deck_chars=5000
    )
    return service


@pytest.fixture(scope="module")
def client(svc: RulingsService) -> TestClient:
    return TestClient(create_app(svc), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def listing(svc: RulingsService) -> FormatSpec:
    """The format with a pool and a list (found by its declarations)."""
    return next(s for s in svc.formats.specs if s.card_pool and s.banlist)


@pytest.fixture(scope="module")
def team(svc: RulingsService) -> FormatSpec:
    return next(s for s in svc.formats.specs if s.per_duelist_decks)


@pytest.fixture(scope="module")
def plain_format(svc: RulingsService) -> FormatSpec:
    """A format without card rules."""
    return next(s for s in svc.formats.specs if not (s.card_pool or s.banlist or s.deck))


# --- GET /cards ----------------------------------------------------------------------------


def test_search_route_matches_the_service(client: TestClient, svc: RulingsService) -> None:
    r = client.get("/cards", params={"q": "tufao espacial mistico", "k": 3})
    assert r.status_code == 200
    body = r.json()
    assert body == svc.cards("tufao espacial mistico", k=3)
    assert body["hits"][0]["id"] == "card/mystical-space-typhoon"
    assert set(body["hits"][0]) == {
        "id", "name_en", "name_pt", "card_type", "property", "attribute",
        "level", "rank", "link_rating", "atk", "def", "score", "matched",
    }  # fmt: skip


def test_search_route_filters(client: TestClient, listing: FormatSpec) -> None:
    body = client.get("/cards", params={"q": "dragon", "type": "synchro"}).json()
    assert [h["name_en"] for h in body["hits"]] == ["Stardust Dragon"]
    hits = client.get("/cards", params={"q": "Effect Veiler", "format": listing.id}).json()["hits"]
    assert all(h["name_en"] != "Effect Veiler" for h in hits)


# --- GET /cards/{id}/legality ----------------------------------------------------------------


def test_legality_route(client: TestClient, svc: RulingsService, listing: FormatSpec) -> None:
    r = client.get("/cards/card/pot-of-greed/legality", params={"format": listing.id})
    assert r.status_code == 200
    body = r.json()
    assert body == svc.card_legality("card/pot-of-greed", listing.id)
    assert (body["legal"], body["limit"], body["status"]) == (False, 0, "forbidden")
    assert body["source"]["authority"] == "document"  # the real document's Forbidden passage
    assert svc.kg.format_of(body["source"]["id"]) == listing.id
    for key in ("sangan", "26202165"):
        got = client.get(f"/cards/{key}/legality", params={"format": listing.id}).json()
        assert (got["card"]["id"], got["limit"]) == ("card/sangan", 3)
    veiler = client.get("/cards/effect-veiler/legality").json()  # default: the first such format
    assert veiler["status"] == "not-in-pool" and "2010-08-17" in veiler["reason"]


def test_legality_errors(client: TestClient, plain_format: FormatSpec) -> None:
    r = client.get("/cards/card/sangna/legality")
    assert r.status_code == 404 and "card/sangan" in r.json()["suggestions"]
    r = client.get("/cards/sangan/legality", params={"format": plain_format.id})
    assert r.status_code == 422 and "declares no card pool" in r.json()["error"]


def test_the_wiki_card_page_is_still_served(client: TestClient) -> None:
    r = client.get("/cards/card/jinzo")
    assert r.status_code == 200 and "Jinzo" in r.text


# --- GET /banlist --------------------------------------------------------------------------


def test_banlist_route_json_and_lflist(
    client: TestClient, svc: RulingsService, listing: FormatSpec
) -> None:
    body = client.get("/banlist", params={"format": listing.id}).json()
    assert body == svc.banlist(listing.id)
    assert body["counts"] == {"forbidden": 1, "limited": 2, "semi_limited": 2}
    assert body["effective"] == "2010-03-01" and "Konami" in body["provenance"]
    assert client.get("/banlist").json() == body  # the first format declaring a list
    r = client.get("/banlist", params={"format": listing.id, "as": "lflist"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    assert r.text == svc.lflist(listing.id) and "$whitelist" in r.text


def test_banlist_errors(client: TestClient, plain_format: FormatSpec) -> None:
    for params, needle in (
        ({"as": "xml"}, "as: unknown list format"),
        ({"format": "pauper"}, "unknown format 'pauper'"),
        ({"format": plain_format.id}, "declares no Forbidden & Limited list"),
    ):
        r = client.get("/banlist", params=params)
        assert r.status_code == 422 and needle in r.json()["error"], params


# --- POST /deck/validate -------------------------------------------------------------------


def test_deck_route(client: TestClient, svc: RulingsService, listing: FormatSpec) -> None:
    deck = deck_text([*FILLER[:39], "Pot of Greed"], ["2 Mystical Space Typhoon"])
    r = client.post("/deck/validate", json={"format": listing.id, "deck": deck})
    assert r.status_code == 200
    body = r.json()
    assert body == svc.deck_validate(listing.id, deck=deck)
    assert not body["ok"] and body["counts"] == {"main": 40, "extra": 0, "side": 2}
    assert Counter(v["kind"] for v in body["violations"]) == Counter({"forbidden": 1, "limited": 1})
    assert all(v["source"]["text"] for v in body["violations"])


def test_deck_route_per_duelist(client: TestClient, team: FormatSpec) -> None:
    one = deck_text([*FILLER[:39], "Mystical Space Typhoon"])
    body = client.post("/deck/validate", json={"format": team.id, "decks": [one, one]}).json()
    assert body["ok"] and len(body["decks"]) == 2 and body["counts"]["main"] == 80, body
    storm = deck_text([*FILLER[:39], "Heavy Storm"])  # forbidden on this format's list
    body = client.post("/deck/validate", json={"format": team.id, "decks": [one, storm]}).json()
    assert [(v["duelist"], v["kind"], v["card"]) for v in body["violations"]] == [
        (2, "forbidden", "Heavy Storm")
    ]


@pytest.mark.parametrize(
    ("payload", "needle"),
    [
        ({"format": None}, "send either"),
        ({"deck": "Sangan", "decks": ["Sangan"]}, "send either"),
        ({"deck": ""}, "deck: must not be empty"),
        ({"deck": "Sangan\n" * 1000}, "the limit is 5000"),
        ({"deck": "#main\nabc"}, "no card entries"),
        ({"deck": "a\x00b"}, "deck: contains a NUL character"),  # the edge refuses it first
        ({"decks": ["Sangan"] * 3}, "at most 2"),
        ({"decks": [deck_text(FILLER)] * 2}, "one deck per player"),
        ({"deck": 42}, "deck"),
        ({"deck": "Sangan", "format": "pauper"}, "unknown format"),
    ],
)
def test_deck_route_bad_input_is_a_422(client: TestClient, payload: dict, needle: str) -> None:
    r = client.post("/deck/validate", json=payload)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["ok"] is False and needle in body["error"]


def test_deck_route_malformed_json(client: TestClient) -> None:
    r = client.post(
        "/deck/validate", content=b"{deck", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["ok"] is False


def test_openapi_shows_the_card_schemas(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert {
        "CardSearchResult",
        "CardHit",
        "Legality",
        "Banlist",
        "DeckReport",
        "DeckRequest",
    } <= set(schemas)
    assert "def" in schemas["CardHit"]["properties"]
    assert "text/plain" in spec["paths"]["/banlist"]["get"]["responses"]["200"]["content"]
    assert "/cards/{card_id}/legality" in spec["paths"]


# --- the CLI prints what the routes return -------------------------------------------------


@pytest.fixture
def cli_service(svc: RulingsService, monkeypatch: pytest.MonkeyPatch) -> RulingsService:
    monkeypatch.setattr("api.cli.service", lambda s, **_: svc)
    return svc


def test_cli_prints_the_route_json(
    cli_service: RulingsService, client: TestClient, listing: FormatSpec, tmp_path: Path
) -> None:
    result = runner.invoke(cli_app, ["cards", "search", "gorz emisary", "--k", "2", "--json"])
    assert result.exit_code == 0, result.output
    assert (
        json.loads(result.stdout)
        == client.get("/cards", params={"q": "gorz emisary", "k": 2}).json()
    )
    result = runner.invoke(
        cli_app, ["cards", "legality", "sangan", "--format", listing.id, "--json"]
    )
    assert (
        json.loads(result.stdout)
        == client.get("/cards/sangan/legality", params={"format": listing.id}).json()
    )
    result = runner.invoke(cli_app, ["banlist", "--format", listing.id, "--json"])
    assert json.loads(result.stdout) == client.get("/banlist", params={"format": listing.id}).json()
    result = runner.invoke(cli_app, ["banlist", "--format", listing.id, "--as", "lflist"])
    assert (
        result.stdout == client.get("/banlist", params={"format": listing.id, "as": "lflist"}).text
    )
    deck = tmp_path / "deck.txt"
    deck.write_text(deck_text([*FILLER[:39], "Pot of Greed"]), "utf-8")
    result = runner.invoke(cli_app, ["deck", "check", str(deck), "--format", listing.id, "--json"])
    assert result.exit_code == 1  # the deck breaks a rule
    posted = client.post(
        "/deck/validate", json={"format": listing.id, "deck": deck.read_text("utf-8")}
    )
    assert json.loads(result.stdout) == posted.json()


def test_cli_errors(cli_service: RulingsService, tmp_path: Path) -> None:
    result = runner.invoke(cli_app, ["deck", "check", str(tmp_path / "missing.ydk")])
    assert result.exit_code == 2 and "no such file" in result.output
    binary = tmp_path / "deck.ydk"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    result = runner.invoke(cli_app, ["deck", "check", str(binary)])
    assert result.exit_code == 2 and "not UTF-8" in result.output
    result = runner.invoke(cli_app, ["banlist", "--as", "xml"])
    assert result.exit_code == 2
    result = runner.invoke(cli_app, ["cards", "search", "x", "--type", "dinosaur"])
    assert result.exit_code == 2 and "unknown card type" in result.output


# --- the real card data through the session's own service (skips without the table) -------


def test_real_banlist_and_decks_through_the_routes(hash_service: RulingsService) -> None:
    if not CARD_TABLE.exists():
        pytest.skip("corpus/carddb/cards.tsv is absent")
    client = TestClient(create_app(hash_service), raise_server_exceptions=False)
    listing = next(s for s in hash_service.formats.specs if s.card_pool and s.banlist)
    body = client.get("/banlist", params={"format": listing.id}).json()
    assert body["counts"] == {"forbidden": 45, "limited": 70, "semi_limited": 20}
    deck = (DECKS / "edison_many_violations.ydk").read_text("utf-8")
    report = client.post("/deck/validate", json={"format": listing.id, "deck": deck}).json()
    assert Counter((v["card"], v["kind"]) for v in report["violations"]) == Counter(
        {
            ("Pot of Greed", "forbidden"): 1,
            ("Heavy Storm", "limited"): 1,
            (None, "main-size"): 1,
            ('Maxx "C"', "not-in-pool"): 1,
        }
    )
    hits = client.get("/cards", params={"q": "Gorz the Emisary of Darkness"}).json()["hits"]
    assert hits[0]["name_en"] == "Gorz the Emissary of Darkness"
