"""Linked data through the ASGI app: /id content negotiation, /sparql, /vocab and the dumps."""

from __future__ import annotations

import asyncio
import csv
import http.server
import io
import json
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fastapi.testclient import TestClient
from rdflib import RDF, Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import SKOS
from rdflib.query import Result
from tests_support import REPO, jsonld_graph  # type: ignore[import-not-found]
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app as cli_app
from api.routes.linked_data import SparqlGate
from kb.adapters.oxigraph_store import store_dir
from kb.adapters.sparql_workers import SparqlEndpoint
from kb.config import Settings
from kb.linked_data.rdf import namespaces, vocabulary
from kb.linked_data.sparql import (
    EndpointBusy,
    QueryTooLarge,
    declared_prefixes,
    negotiate,
    parse_accept,
)
from kb.service import RulingsService

if TYPE_CHECKING:
    from conftest import Built

BASE = Settings().base_iri
RES, VOC, _ = namespaces(BASE)
TRAP_MONSTER = f"<{RES['concept/trap-monster']}>"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
SPARQL_JSON = "application/sparql-results+json"
RULES_ABOUT_TRAP_MONSTERS = f"""
PREFIX ygo: <{VOC}>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?rule ?title WHERE {{
  ?rule a ygo:Rule ; ygo:about {TRAP_MONSTER} ; skos:prefLabel ?title .
}}"""
# The cards a passage or example names, with their labels (every card would pass the row bound).
NAMED_CARDS = "?c a ygo:Card ; skos:prefLabel ?l . FILTER EXISTS { ?text ygo:mentions ?c }"
# a cross product of two patterns: runs until stopped, holding one side (a third pattern
# would hold the product of two and may meet the memory cap before the time limit)
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }"


@pytest.fixture(scope="module")
def client(service: RulingsService) -> TestClient:
    return TestClient(create_app(service), raise_server_exceptions=False)


def error(response: object, status: int) -> dict:
    """The envelope of an error response, checked."""
    assert response.status_code == status, response.text  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert body["ok"] is False and body["status"] == status and body["error"]
    return body


# --- content negotiation ---------------------------------------------------------------------


def test_accept_parsing_honours_q_values_and_wildcards() -> None:
    assert parse_accept("text/turtle;q=0.5, application/ld+json") == [
        ("text/turtle", 0.5),
        ("application/ld+json", 1.0),
    ]
    offers = ["application/json", "application/ld+json", "text/turtle"]
    assert negotiate(None, offers) == "application/json"
    assert negotiate("*/*", offers) == "application/json"
    assert negotiate("text/turtle;q=0.5, application/ld+json", offers) == "application/ld+json"
    assert negotiate("text/*", offers) == "text/turtle"
    assert negotiate("*/*;q=0.1, application/json;q=0", offers) == "application/ld+json"
    assert negotiate("image/png", offers) is None


# --- /id/{id} --------------------------------------------------------------------------------


@pytest.mark.parametrize("accept", [None, "*/*", BROWSER, "application/json"])
def test_id_defaults_to_json(client: TestClient, service: RulingsService, accept: str) -> None:
    headers = {"accept": accept} if accept else {}
    r = client.get("/id/card/jinzo", headers=headers)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert r.json() == service.show("card/jinzo")
    assert r.headers["vary"] == "Accept"


def test_id_as_jsonld_describes_the_node(client: TestClient, rdf_graph: Graph) -> None:
    r = client.get("/id/card/jinzo", headers={"accept": "application/ld+json"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/ld+json")
    g = jsonld_graph(r.text)
    jinzo = RES["card/jinzo"]
    assert (jinzo, RDF.type, VOC.Card) in g
    assert (jinzo, SKOS.prefLabel, Literal("Jinzo", lang="en")) in g
    assert set(g.subjects(VOC.subject, jinzo)), "the facts whose subject it is"
    for obj in g.objects(jinzo, None):
        if isinstance(obj, URIRef) and obj.startswith(str(RES)):
            assert any(True for _ in g.objects(obj, SKOS.prefLabel)), obj
    assert all(t in rdf_graph for t in g), "a description only holds triples of the graph"


def described_in(graph: Graph, subject: URIRef) -> Graph:
    """The reference description, picked out of the whole graph: the subject's own triples, the
    labels of what they point to, and the `ygo:Fact`s whose ygo:subject it is, with their triples
    (what /id/… served before it was built from the node's own records)."""
    out = Graph()
    for prefix, ns in graph.namespaces():
        out.bind(prefix, ns, override=True, replace=True)
    for s, p, o in graph.triples((subject, None, None)):
        out.add((s, p, o))
        if isinstance(o, URIRef):
            for label in graph.objects(o, SKOS.prefLabel):
                out.add((o, SKOS.prefLabel, label))
    for fact in graph.subjects(VOC.subject, subject):
        for triple in graph.triples((fact, None, None)):
            out.add(triple)
    return out


# One node of every kind, on the real corpus: a rule with many facts, its step, a section, a
# passage and an example, the documents' cards (curated) and the card table's, the card of the
# table with the most facts, a concept, a document, a format, a claim.
DESCRIBED = [
    "edison/rule-08",
    "edison/rule-08/substep-02",
    "card/jinzo",
    "card/solemn-judgment",
    "card/enneacraft-atil-spia",
    "card/a-journey-back-to-the-light-zenet",
    "concept/chain",
    "concept/spell-speed-2",
    "edison",
    "format/tag",
    "claim/edison/banlist-march-2010-tcg",
]


@pytest.mark.parametrize("node_id", DESCRIBED)
def test_a_description_is_the_whole_graphs_part(
    service: RulingsService, rdf_graph: Graph, node_id: str
) -> None:
    """/id/…?as=ttl|jsonld, built from the node alone, is isomorphic to the description picked
    out of the whole graph, and the Turtle is the same text."""
    expected = described_in(rdf_graph, RES[node_id])
    assert len(expected) > 3
    ttl = service.node_rdf(node_id, "ttl")
    assert ttl == expected.serialize(format="turtle")
    assert isomorphic(Graph().parse(data=ttl, format="turtle"), expected)
    jsonld = jsonld_graph(service.node_rdf(node_id, "jsonld"))
    assert isomorphic(jsonld, expected)


def test_every_kind_of_node_is_described(service: RulingsService, rdf_graph: Graph) -> None:
    """Beside the named nodes: a section, passage, example and step of every document, each
    described as the whole graph's part, and the fact-bearing card states its facts."""
    kg = service.kg
    picked = [
        next(n for n in kg.of_type(kind) if n.span and n.span.document == doc)
        for kind in ("Section", "Passage", "Example", "Step")
        for doc in ("edison", "rulings", "tag")
        if any(n.span and n.span.document == doc for n in kg.of_type(kind))
    ]
    assert {n.type for n in picked} == {"Section", "Passage", "Example", "Step"}
    for node in picked:
        described = service.node_rdf(node.id, "ttl")
        assert described == described_in(rdf_graph, RES[node.id]).serialize(format="turtle")
    card = Graph().parse(data=service.node_rdf("card/enneacraft-atil-spia", "ttl"))
    assert len(set(card.subjects(VOC.subject, RES["card/enneacraft-atil-spia"]))) >= 10


def test_a_description_never_builds_the_whole_graph(
    service: RulingsService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def whole_graph(*args: object) -> None:
        raise AssertionError("a node's description built the whole graph")

    monkeypatch.setattr("kb.linked_data.rdf.graph_triples", whole_graph)  # imported late
    for node_id in DESCRIBED:
        assert service.node_rdf(node_id, "jsonld").startswith('{\n "@context"')


def test_id_turtle_and_jsonld_agree(client: TestClient) -> None:
    ttl = client.get("/id/edison/rule-05", headers={"accept": "text/turtle"})
    assert ttl.headers["content-type"].startswith("text/turtle")
    jsonld = client.get("/id/edison/rule-05", params={"as": "jsonld"})
    assert isomorphic(
        Graph().parse(data=ttl.text, format="turtle"),
        jsonld_graph(jsonld.text),
    )


def test_id_as_parameter_wins_over_accept(client: TestClient) -> None:
    r = client.get("/id/card/jinzo", params={"as": "ttl"}, headers={"accept": "application/json"})
    assert r.headers["content-type"].startswith("text/turtle")
    r = client.get("/id/card/jinzo", params={"as": "json"}, headers={"accept": "image/png"})
    assert r.status_code == 200 and r.json()["id"] == "card/jinzo"


def test_id_bad_representation_and_unknown_id(client: TestClient) -> None:
    body = error(client.get("/id/card/jinzo", headers={"accept": "image/png"}), 406)
    assert "application/ld+json" in body["available"]
    assert "as" in error(client.get("/id/card/jinzo", params={"as": "xml"}), 422)["error"]
    missing = client.get("/id/card/jinzoo", headers={"accept": "text/turtle"})
    assert "card/jinzo" in error(missing, 404)["suggestions"]


# --- /sparql: answers ------------------------------------------------------------------------


def bindings(response: object) -> list[dict[str, str]]:
    data = response.json()  # type: ignore[attr-defined]
    return [{k: v["value"] for k, v in row.items()} for row in data["results"]["bindings"]]


def test_select_as_json_xml_and_csv(client: TestClient) -> None:
    expected = [
        {"rule": str(RES["edison/rule-05"]), "title": "Bloqueio de Zona por Monstros de Armadilha"}
    ]
    r = client.get("/sparql", params={"query": RULES_ABOUT_TRAP_MONSTERS})
    assert r.status_code == 200 and r.headers["content-type"].startswith(SPARQL_JSON)
    assert bindings(r) == expected
    xml = client.get(
        "/sparql",
        params={"query": RULES_ABOUT_TRAP_MONSTERS},
        headers={"accept": "application/sparql-results+xml"},
    )
    parsed = Result.parse(io.BytesIO(xml.content), format="xml")
    assert [{str(k): str(v) for k, v in row.asdict().items()} for row in parsed] == expected
    table = client.get(
        "/sparql", params={"query": RULES_ABOUT_TRAP_MONSTERS}, headers={"accept": "text/csv"}
    )
    assert table.headers["content-type"].startswith("text/csv")
    assert list(csv.DictReader(io.StringIO(table.text))) == expected


def test_post_form_and_body_answer_like_get(client: TestClient) -> None:
    get = client.get("/sparql", params={"query": RULES_ABOUT_TRAP_MONSTERS})
    form = client.post("/sparql", data={"query": RULES_ABOUT_TRAP_MONSTERS})
    body = client.post(
        "/sparql",
        content=RULES_ABOUT_TRAP_MONSTERS.encode(),
        headers={"content-type": "application/sparql-query"},
    )
    assert get.json() == form.json() == body.json()


def test_predeclared_prefixes_ask_and_aggregates(client: TestClient) -> None:
    ask = client.get(
        "/sparql", params={"query": "ASK { ?c a ygo:Card ; skos:prefLabel 'Jinzo'@en }"}
    )
    assert ask.json()["boolean"] is True
    count = client.get("/sparql", params={"query": "SELECT (COUNT(?r) AS ?n) { ?r a ygo:Rule }"})
    assert bindings(count) == [{"n": "13"}]


def test_select_as_tsv(client: TestClient) -> None:
    table = client.get(
        "/sparql",
        params={"query": RULES_ABOUT_TRAP_MONSTERS},
        headers={"accept": "text/tab-separated-values"},
    )
    assert table.status_code == 200, table.text
    assert table.headers["content-type"].startswith("text/tab-separated-values")
    head, *rows = table.text.rstrip("\n").split("\n")
    assert head == "?rule\t?title"
    assert rows == [f'<{RES["edison/rule-05"]}>\t"Bloqueio de Zona por Monstros de Armadilha"@pt']
    parsed = Result.parse(io.BytesIO(table.content), format="tsv")
    assert [str(row[0]) for row in parsed] == [str(RES["edison/rule-05"])]


def test_graph_results_use_the_declared_prefixes(client: TestClient) -> None:
    construct = (
        "CONSTRUCT { ?c a ygo:Card ; skos:prefLabel ?l } "
        "WHERE { ?c a ygo:Card ; skos:prefLabel ?l } LIMIT 5"
    )
    ttl = client.get("/sparql", params={"query": construct}).text
    assert f"@prefix ygo: <{VOC}> ." in ttl and "skos:prefLabel" in ttl and " ygo:Card" in ttl
    assert "ns1:" not in ttl and "ns2:" not in ttl
    jsonld = client.get(
        "/sparql", params={"query": construct}, headers={"accept": "application/ld+json"}
    ).json()
    assert jsonld["@context"]["ygo"] == str(VOC) and "skos:prefLabel" in json.dumps(jsonld)
    described = client.get("/sparql", params={"query": f"DESCRIBE <{RES['card/jinzo']}>"}).text
    assert "ygo:Card" in described and "ns1:" not in described
    for query in (construct, f"DESCRIBE <{RES['card/jinzo']}>"):
        xml = client.get(
            "/sparql", params={"query": query}, headers={"accept": "application/rdf+xml"}
        ).text
        assert f'xmlns:ygo="{VOC}"' in xml and "<skos:prefLabel" in xml and "ns1" not in xml
        described_ld = client.get(
            "/sparql", params={"query": query}, headers={"accept": "application/ld+json"}
        ).text
        assert '"ygo": "' in described_ld and "ns1" not in described_ld


def test_construct_and_describe_are_graphs(client: TestClient) -> None:
    construct = f"CONSTRUCT {{ ?c skos:prefLabel ?l }} WHERE {{ {NAMED_CARDS} }}"
    ttl = client.get("/sparql", params={"query": construct})
    assert ttl.headers["content-type"].startswith("text/turtle")
    g = Graph().parse(data=ttl.text, format="turtle")
    assert (RES["card/jinzo"], SKOS.prefLabel, Literal("Jinzo", lang="en")) in g
    jsonld = client.get(
        "/sparql", params={"query": construct}, headers={"accept": "application/ld+json"}
    )
    assert isomorphic(g, Graph().parse(data=jsonld.text, format="json-ld"))
    described = client.get("/sparql", params={"query": f"DESCRIBE <{RES['card/jinzo']}>"})
    assert (RES["card/jinzo"], RDF.type, VOC.Card) in Graph().parse(
        data=described.text, format="turtle"
    )


def test_cli_prints_what_the_service_returns(
    data_copy: Path, corpus_dir: Path, service: RulingsService
) -> None:
    where = ["--data", str(data_copy), "--corpus", str(corpus_dir)]
    result = CliRunner().invoke(
        cli_app, ["sparql", RULES_ABOUT_TRAP_MONSTERS, "--format", "csv", *where]
    )
    assert result.exit_code == 0, result.output
    body, _media = service.sparql(RULES_ABOUT_TRAP_MONSTERS, "text/csv")
    assert result.stdout.strip() == body.replace("\r\n", "\n").strip()  # Click's newlines
    bad = CliRunner().invoke(cli_app, ["sparql", "SELECT ?s {", *where])
    assert bad.exit_code == 1 and "malformed SPARQL query" in bad.output


# --- /sparql: bad input ----------------------------------------------------------------------


def test_malformed_query_is_a_400_with_the_position(client: TestClient) -> None:
    r = client.get("/sparql", params={"query": "SELECT ?s WHERE {\n  ?s ?p\n}"})
    body = error(r, 400)
    assert body["line"] == 2 and body["column"] > 0
    assert "malformed SPARQL query at line 2" in body["error"] and "Expected" in body["error"]


UPDATES = [
    "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
    "DELETE DATA { <urn:a> <urn:b> <urn:c> }",
    "DELETE WHERE { ?s ?p ?o }",
    "WITH <urn:g> DELETE { ?s ?p ?o } INSERT { ?s ?p 1 } WHERE { ?s ?p ?o }",
    "LOAD <file:///etc/passwd>",
    "LOAD <http://127.0.0.1:9/data.ttl> INTO GRAPH <urn:g>",
    "CLEAR ALL",
    "CREATE GRAPH <urn:g>",
    "DROP DEFAULT",
    "COPY DEFAULT TO <urn:g>",
    "MOVE DEFAULT TO <urn:g>",
    "ADD DEFAULT TO <urn:g>",
]


@pytest.mark.parametrize("update", UPDATES)
def test_updates_are_refused(client: TestClient, update: str) -> None:
    assert "read-only" in error(client.get("/sparql", params={"query": update}), 400)["error"]


def test_update_requests_are_refused(client: TestClient) -> None:
    form = client.post("/sparql", data={"update": UPDATES[0]})
    assert "read-only" in error(form, 400)["error"]
    body = client.post(
        "/sparql", content=UPDATES[0], headers={"content-type": "application/sparql-update"}
    )
    assert "read-only" in error(body, 400)["error"]


@pytest.mark.parametrize(
    ("query", "status", "needle"),
    [
        ("SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }", 422, "SERVICE"),
        (
            "ASK { FILTER EXISTS { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } } }",
            422,
            "SERVICE",
        ),
        ("SELECT * FROM <file:///etc/passwd> WHERE { ?s ?p ?o }", 422, "FROM"),
        ("SELECT * FROM NAMED <http://127.0.0.1:9/g> WHERE { ?s ?p ?o }", 422, "FROM"),
        ("SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }", 422, "GRAPH"),
        ("SELECT * WHERE { ?s nope:p ?o }", 400, "prefix"),
        ("SELECT * WHERE { ?s ?p ?o }", 503, "more than 10000 results (sparql_max_results)"),
        ("CONSTRUCT WHERE { ?s ?p ?o }", 503, "more than 10000 results (sparql_max_results)"),
        ("DESCRIBE ?s WHERE { ?s ?p ?o }", 503, "more than 10000 results (sparql_max_results)"),
    ],
)
def test_queries_reaching_outside_or_too_big_are_refused(
    client: TestClient, query: str, status: int, needle: str
) -> None:
    """400 only for what is malformed; a well-formed query the endpoint will not run is a 422;
    one past the size bound a 503 without Retry-After (retrying the same query cannot help)."""
    r = client.get("/sparql", params={"query": query})
    assert needle in error(r, status)["error"]
    assert "retry-after" not in r.headers


def test_nothing_is_ever_fetched(client: TestClient) -> None:
    """FROM, FROM NAMED, SERVICE and LOAD naming a live local server never reach it."""
    hits: list[str] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.send_header("content-type", "text/turtle")
            self.end_headers()
            self.wfile.write(b"<urn:a> <urn:b> <urn:c> .")

        do_POST = do_GET

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/data"
        for query, status in (
            (f"SELECT * FROM <{url}> WHERE {{ ?s ?p ?o }}", 422),
            (f"SELECT * FROM NAMED <{url}> WHERE {{ ?s ?p ?o }}", 422),
            (f"SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}", 422),
            (f"SELECT * WHERE {{ OPTIONAL {{ SERVICE SILENT <{url}> {{ ?s ?p ?o }} }} }}", 422),
            (f"LOAD <{url}>", 400),
        ):
            error(client.get("/sparql", params={"query": query}), status)
        server.shutdown()
    assert hits == []


def test_protocol_errors(client: TestClient) -> None:
    assert "query" in error(client.get("/sparql"), 422)["error"]
    assert "query" in error(client.post("/sparql", data={"query": " "}), 422)["error"]
    dataset = client.get("/sparql", params={"query": "ASK {}", "default-graph-uri": "urn:g"})
    assert "default-graph-uri" in error(dataset, 422)["error"]
    error(client.post("/sparql", data={"query": "ASK {}", "named-graph-uri": "urn:g"}), 422)
    error(client.post("/sparql", content="ASK {}", headers={"content-type": "text/plain"}), 415)
    png = client.get("/sparql", params={"query": "ASK {}"}, headers={"accept": "image/png"})
    error(png, 406)
    csv_ask = client.get("/sparql", params={"query": "ASK {}"}, headers={"accept": "text/csv"})
    error(csv_ask, 406)


def test_concurrent_queries_all_answer(client: TestClient) -> None:
    results: list[int] = []

    def one() -> None:
        results.append(
            client.get("/sparql", params={"query": RULES_ABOUT_TRAP_MONSTERS}).status_code
        )

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [200] * 6


def test_the_sparql_gate_refuses_past_its_size_at_once() -> None:
    """The route's own limiter: beyond `size` requests in flight, 503 without waiting."""
    gate = SparqlGate(size=1)
    release = threading.Event()

    async def scenario() -> None:
        first = asyncio.ensure_future(gate.run(release.wait, 5))
        await asyncio.sleep(0.05)
        start = time.monotonic()
        with pytest.raises(EndpointBusy, match="already answered or waiting"):
            await gate.run(lambda: None)
        assert time.monotonic() - start < 0.5
        release.set()
        assert await first is True
        assert await gate.run(lambda: 7) == 7

    asyncio.run(scenario())


# --- /sparql: a runaway query ----------------------------------------------------------------


@pytest.fixture
def quick_service(built: Built) -> Iterator[RulingsService]:
    """A service whose SPARQL queries may run one second."""
    settings = Settings(data_dir=built.data_dir, corpus_dir=REPO / "corpus", sparql_timeout=1.0)
    service = RulingsService(built.artifact, settings)
    yield service
    service.close()


def test_a_runaway_query_is_stopped_and_the_app_stays_responsive(
    quick_service: RulingsService,
) -> None:
    client = TestClient(create_app(quick_service), raise_server_exceptions=False)
    client.get("/sparql", params={"query": "ASK {}"})  # the graph and a worker are ready
    outcome: dict[str, object] = {}

    def runaway() -> None:
        start = time.monotonic()
        outcome["response"] = client.get("/sparql", params={"query": RUNAWAY})
        outcome["seconds"] = time.monotonic() - start

    thread = threading.Thread(target=runaway)
    thread.start()
    health_times = []
    while thread.is_alive():
        start = time.monotonic()
        assert client.get("/health").status_code == 200
        health_times.append(time.monotonic() - start)
        time.sleep(0.1)
    thread.join()
    body = error(outcome["response"], 503)
    assert outcome["response"].headers["retry-after"] == "1"  # type: ignore[attr-defined]
    assert "stopped after 1 s" in body["error"] and "sparql_timeout" in body["error"]
    assert float(outcome["seconds"]) < 1.0 + 1.0  # type: ignore[arg-type]
    assert len(health_times) >= 3 and max(health_times) < 0.5
    after = client.get("/sparql", params={"query": RULES_ABOUT_TRAP_MONSTERS})
    assert after.status_code == 200, "a fresh worker replaces the stopped one"


def test_a_query_past_the_memory_cap_fails_cleanly(built: Built) -> None:
    store = store_dir(built.artifact.path, BASE) / "store"
    prefixes = declared_prefixes(BASE)
    endpoint = SparqlEndpoint(store, 30.0, 10, prefixes, workers=1, memory=64 << 20)
    try:
        start = time.monotonic()
        with pytest.raises(QueryTooLarge, match="more memory"):
            endpoint.query("SELECT * { ?a ?b ?c . ?d ?e ?f } ORDER BY ?a LIMIT 1")
        assert time.monotonic() - start < 20
        body, _ = endpoint.query("ASK { ?s ?p ?o }")
        assert json.loads(body)["boolean"] is True, "a fresh worker answers the next query"
    finally:
        endpoint.close()


def test_the_worker_sandbox_blocks_files_network_and_processes(tmp_path: Path) -> None:
    secret = tmp_path / "secret.ttl"
    secret.write_text("<urn:a> <urn:b> <urn:c> .\n", "utf-8")
    script = textwrap.dedent(
        f"""
        import socket, subprocess, urllib.request
        from rdflib import Graph
        from kb.adapters.sparql_workers import install_sandbox
        install_sandbox()
        import colorsys  # reading Python modules stays allowed
        attempts = {{
            "read": lambda: open({str(secret)!r}).read(),
            "write": lambda: open({str(tmp_path / "out.txt")!r}, "w"),
            "parse": lambda: Graph().parse({secret.as_uri()!r}),
            "http": lambda: urllib.request.urlopen("http://127.0.0.1:9/"),
            "socket": lambda: socket.create_connection(("127.0.0.1", 9)),
            "process": lambda: subprocess.run(["true"]),
        }}
        for name, attempt in attempts.items():
            try:
                attempt()
                print(name, "allowed")
            except PermissionError:
                print(name, "blocked")
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    lines = run.stdout.split("\n")
    for name in ("read", "write", "parse", "http", "socket", "process"):
        assert f"{name} blocked" in lines, run.stdout + run.stderr
    assert not (tmp_path / "out.txt").exists()


# --- /vocab and the dumps --------------------------------------------------------------------


@pytest.mark.parametrize("accept", [None, BROWSER, "text/html"])
def test_vocab_is_html_by_default(client: TestClient, accept: str | None) -> None:
    r = client.get("/vocab", headers={"accept": accept} if accept else {})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    page = r.text
    vocab = vocabulary(BASE)
    for term in set(vocab.subjects(RDF.type, None)):
        name = str(term).removeprefix(str(VOC))
        assert f'id="{name}"' in page, name
        for label in vocab.objects(term, URIRef("http://www.w3.org/2000/01/rdf-schema#label")):
            assert str(label) in page or str(label).replace("'", "&#x27;") in page, label
    assert "Spell speed of a card or class." in page and 'href="#Card"' in page


@pytest.mark.parametrize(
    ("kwargs", "fmt"),
    [
        ({"headers": {"accept": "text/turtle"}}, "turtle"),
        ({"params": {"as": "ttl"}}, "turtle"),
        ({"headers": {"accept": "application/ld+json"}}, "json-ld"),
    ],
)
def test_vocab_as_rdf(client: TestClient, kwargs: dict, fmt: str) -> None:
    r = client.get("/vocab", **kwargs)
    assert r.status_code == 200
    parsed = jsonld_graph(r.text) if fmt == "json-ld" else Graph().parse(data=r.text, format=fmt)
    assert isomorphic(parsed, vocabulary(BASE))


def test_vocab_refuses_what_it_cannot_write(client: TestClient) -> None:
    error(client.get("/vocab", headers={"accept": "application/json"}), 406)


def test_every_class_and_property_used_is_documented(rdf_graph: Graph) -> None:
    graph, vocab = rdf_graph, vocabulary(BASE)
    documented = set(vocab.subjects(RDF.type, None))
    used = {p for p in graph.predicates() if p.startswith(str(VOC))}
    used |= {o for o in graph.objects(None, RDF.type) if o.startswith(str(VOC))}
    assert used and used <= documented, sorted(used - documented)


def test_both_dumps_parse_to_the_same_graph(lite_service: RulingsService) -> None:
    """On the KB without the card table (the dumps' cost with 14,000 cards is a benchmark's)."""
    service = lite_service
    client = TestClient(create_app(service))
    ttl = Graph().parse(data=client.get("/export.ttl").text, format="turtle")
    jsonld = jsonld_graph(client.get("/export.jsonld").text)
    whole = Graph()
    for triple in service.whole_graph():
        whole.add(triple)
    assert len(ttl) == len(whole) > 10_000
    assert isomorphic(ttl, jsonld)
    assert isomorphic(ttl, whole)


def test_openapi_lists_the_linked_data_routes(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/id/{node_id}", "/sparql", "/vocab"} <= set(paths)
    assert set(paths["/sparql"]) == {"get", "post"}
    for operation in paths["/sparql"].values():
        statuses = operation["responses"]
        assert {"200", "400", "406", "422", "503"} <= set(statuses)
        assert "sparql_max_results" in statuses["503"]["description"]
        assert "Retry-After" in statuses["503"]["description"]
        assert "text/tab-separated-values" in statuses["200"]["content"]
        assert "truncated" in operation["description"]


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/sparql", {"query": "ASK { ?s ?p ?o }"}),
        ("/id/card/jinzo", {"as": "ttl"}),
        ("/vocab", {}),
    ],
)
def test_head_answers_like_get_without_a_body(
    client: TestClient, path: str, params: dict[str, str]
) -> None:
    get = client.get(path, params=params)
    head = client.head(path, params=params)
    assert head.status_code == get.status_code == 200
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.content == b""
