"""The result writers: what Oxigraph returns, written in every format and read back by rdflib."""

from __future__ import annotations

import gc
import io
import json
import sys
import threading

import pyoxigraph as ox
import pytest
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.query import Result

from kb.config import Settings
from kb.linked_data.sparql import TooManyResults, declared_prefixes
from kb.linked_data.sparql_results import render

PREFIXES = declared_prefixes(Settings().base_iri)
EX = "http://example.org/"
XSD_INTEGER = URIRef("http://www.w3.org/2001/XMLSchema#integer")
TRICKY = 'a "quoted", comma\ttab\nnewline <b>&</b> ção'


@pytest.fixture(scope="module")
def store() -> ox.Store:
    s = ox.Store()
    p = ox.NamedNode(EX + "p")
    values = [
        ox.NamedNode(EX + "iri"),
        ox.Literal(TRICKY, language="pt"),
        ox.Literal("42", datatype=ox.NamedNode(str(XSD_INTEGER))),
        ox.Literal("plain"),
        ox.BlankNode("b1"),
    ]
    for i, value in enumerate(values):
        s.add(ox.Quad(ox.NamedNode(f"{EX}s{i}"), p, value))
    return s


SELECT = f"SELECT ?s ?o ?missing WHERE {{ ?s <{EX}p> ?o OPTIONAL {{ ?s <{EX}q> ?missing }} }} ORDER BY ?s"


def expected_rows() -> list[tuple[object, ...]]:
    return [
        (URIRef(EX + "s0"), URIRef(EX + "iri"), None),
        (URIRef(EX + "s1"), Literal(TRICKY, lang="pt"), None),
        (URIRef(EX + "s2"), Literal("42", datatype=XSD_INTEGER), None),
        (URIRef(EX + "s3"), Literal("plain"), None),
        (URIRef(EX + "s4"), "bnode", None),
    ]


def normal(row: object) -> tuple[object, ...]:
    return tuple("bnode" if isinstance(v, BNode) else v for v in row)  # type: ignore[attr-defined]


@pytest.mark.parametrize("fmt", ["json", "xml", "tsv"])
def test_select_round_trips_through_rdflib(store: ox.Store, fmt: str) -> None:
    body = render("SELECT", store.query(SELECT), fmt, 100, PREFIXES)
    parsed = Result.parse(io.BytesIO(body.encode("utf-8")), format=fmt)
    assert [str(v) for v in parsed.vars or []] == ["s", "o", "missing"]
    assert [normal(row) for row in parsed] == expected_rows()


def test_select_as_csv_holds_the_plain_values(store: ox.Store) -> None:
    body = render("SELECT", store.query(SELECT), "csv", 100, PREFIXES)
    assert body.startswith("s,o,missing\r\n") and body.endswith("\r\n")
    parsed = Result.parse(io.BytesIO(body.encode("utf-8")), format="csv")
    values = [tuple(str(v) if v is not None else "" for v in row) for row in parsed]
    assert values[:4] == [
        (EX + "s0", EX + "iri", ""),
        (EX + "s1", TRICKY, ""),
        (EX + "s2", "42", ""),
        (EX + "s3", "plain", ""),
    ]
    assert f"\r\n{EX}s4,_:" in body, "a blank node is written as _:label"


def test_json_leaves_out_unbound_and_xsd_string(store: ox.Store) -> None:
    body = json.loads(render("SELECT", store.query(SELECT), "json", 100, PREFIXES))
    rows = body["results"]["bindings"]
    assert all("missing" not in row for row in rows)
    assert rows[1]["o"] == {"type": "literal", "value": TRICKY, "xml:lang": "pt"}
    assert rows[2]["o"]["datatype"] == str(XSD_INTEGER)
    assert rows[3]["o"] == {"type": "literal", "value": "plain"}
    assert rows[4]["o"]["type"] == "bnode"


@pytest.mark.parametrize(("fmt", "value"), [("json", True), ("xml", True), ("json", False)])
def test_ask(store: ox.Store, fmt: str, value: bool) -> None:
    query = f"ASK {{ ?s <{EX}p> {'?o' if value else '<urn:nothing>'} }}"
    body = render("ASK", store.query(query), fmt, 100, PREFIXES)
    assert Result.parse(io.BytesIO(body.encode("utf-8")), format=fmt).askAnswer is value


@pytest.mark.parametrize(
    ("fmt", "parse_as"),
    [("turtle", "turtle"), ("json-ld", "json-ld"), ("nt", "nt"), ("xml", "xml")],
)
def test_graphs_round_trip_in_every_format(store: ox.Store, fmt: str, parse_as: str) -> None:
    construct = "CONSTRUCT WHERE { ?s ?p ?o }"
    body = render("CONSTRUCT", store.query(construct), fmt, 100, PREFIXES)
    nt = ox.serialize(store.query(construct), format=ox.RdfFormat.N_TRIPLES) or b""
    assert isomorphic(
        Graph().parse(data=body, format=parse_as), Graph().parse(data=nt, format="nt")
    )


def test_results_past_the_bound_are_refused_not_truncated(store: ox.Store) -> None:
    with pytest.raises(TooManyResults, match="more than 4 results"):
        render("SELECT", store.query(SELECT), "json", 4, PREFIXES)
    with pytest.raises(TooManyResults):
        render("CONSTRUCT", store.query("CONSTRUCT WHERE { ?s ?p ?o }"), "turtle", 4, PREFIXES)
    assert render("SELECT", store.query(SELECT), "json", 5, PREFIXES)


def test_a_refused_result_leaves_nothing_for_another_thread_to_drop(store: ox.Store) -> None:
    """Oxigraph's iterators may only be dropped by their own thread; an error must not carry one
    (the server hands exceptions from its SPARQL threads to the event loop's)."""
    with pytest.raises(TooManyResults) as info:
        render("SELECT", store.query(SELECT), "json", 1, PREFIXES)
    held = [info.value]
    del info
    seen: list[object] = []
    previous = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        elsewhere = threading.Thread(target=lambda: (held.clear(), gc.collect()))
        elsewhere.start()
        elsewhere.join()
    finally:
        sys.unraisablehook = previous
    assert seen == []
