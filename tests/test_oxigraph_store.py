"""The embedded Oxigraph store: built with the artifact, checked and rebuilt, warm at start."""

from __future__ import annotations

import http.server
import json
import logging
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pyoxigraph as ox
import pytest
from fastapi.testclient import TestClient
from rdflib import RDF, Graph, Literal
from rdflib.compare import isomorphic
from rdflib.namespace import SKOS
from tests_support import REPO  # type: ignore[import-not-found]

from api.app import create_app
from kb.adapters.oxigraph_store import (
    META,
    dump_file,
    ensure_store,
    execute,
    open_store,
    store_dir,
    store_problem,
    write_store,
)
from kb.config import Settings
from kb.errors import ArtifactError
from kb.linked_data.rdf import namespaces
from kb.linked_data.sparql import (
    EndpointBusy,
    MalformedQuery,
    QueryRefused,
    SparqlError,
    TooManyResults,
    declared_prefixes,
    engine_syntax_error,
)
from kb.service import RulingsService
from kb.store import load_artifact

if TYPE_CHECKING:
    from conftest import Built

BASE = Settings().base_iri
RES, VOC, _ = namespaces(BASE)
PREFIXES = declared_prefixes(BASE)


def tiny_graph(n: int = 3) -> Graph:
    g = Graph()
    for i in range(n):
        card = RES[f"card/c{i}"]
        g.add((card, RDF.type, VOC.Card))
        g.add((card, SKOS.prefLabel, Literal(f"Card {i}", lang="en")))
    return g


@pytest.fixture
def tiny_store(tmp_path: Path) -> Path:
    write_store(store_dir(tmp_path, BASE), tiny_graph(), BASE)
    return tmp_path


def sst_file(build: Path) -> Path:
    return next(p for p in (store_dir(build, BASE) / "store").iterdir() if p.suffix == ".sst")


# --- writing, checking, rebuilding -----------------------------------------------------------


def test_a_written_store_is_sound_and_holds_the_triples(tiny_store: Path) -> None:
    target = store_dir(tiny_store, BASE)
    assert store_problem(target, BASE) is None
    meta = json.loads((target / META).read_text("utf-8"))
    assert meta["triples"] == 6 and meta["base_iri"] == BASE and meta["pyoxigraph"]
    assert not list(target.glob("*.nt")), "the N-Triples it was loaded from are removed"
    store = open_store(target / "store")
    assert {ox.NamedNode(str(RES["card/c1"]))} <= {q.subject for q in store}


def test_opening_it_read_only_changes_no_file(tiny_store: Path) -> None:
    files = store_dir(tiny_store, BASE) / "store"
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in files.iterdir()}
    first, second = open_store(files), open_store(files)  # several readers at once
    assert len(first) == len(second) == 6
    del first, second
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in files.iterdir()} == before


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        ("flip", "damaged"),
        ("truncate", "damaged"),
        ("meta", "meta.json"),
        ("missing", "missing"),
    ],
)
def test_a_damaged_or_missing_store_is_rebuilt_with_a_warning(
    tiny_store: Path, caplog: pytest.LogCaptureFixture, damage: str, problem: str
) -> None:
    target = store_dir(tiny_store, BASE)
    if damage == "flip":
        sst = sst_file(tiny_store)
        data = bytearray(sst.read_bytes())
        data[len(data) // 2] ^= 0xFF
        sst.write_bytes(bytes(data))
    elif damage == "truncate":
        sst = sst_file(tiny_store)
        sst.write_bytes(sst.read_bytes()[:10])
    elif damage == "meta":
        (target / META).write_text("{not json", "utf-8")
    else:
        shutil.rmtree(target)
    assert problem in (store_problem(target, BASE) or "")
    with caplog.at_level(logging.WARNING):
        path = ensure_store(tiny_store, BASE, lambda: tiny_graph(4))
    assert "rebuilding the SPARQL store" in caplog.text and problem in caplog.text
    assert path == target / "store" and store_problem(target, BASE) is None
    assert len(open_store(path)) == 8
    assert not [p for p in tiny_store.iterdir() if p.name.startswith(".")], "no temporary left"


def test_a_sound_store_is_used_as_is(tiny_store: Path, caplog: pytest.LogCaptureFixture) -> None:
    def never() -> Graph:
        raise AssertionError("a sound store is not rebuilt")

    with caplog.at_level(logging.WARNING):
        path = ensure_store(tiny_store, BASE, never)
    assert path == store_dir(tiny_store, BASE) / "store" and not caplog.text


def test_another_base_iri_gets_its_own_store(tiny_store: Path) -> None:
    other = "https://example.org/ygo/"
    assert store_dir(tiny_store, other) != store_dir(tiny_store, BASE)
    path = ensure_store(tiny_store, other, tiny_graph)
    assert store_problem(store_dir(tiny_store, BASE), BASE) is None, "the default one stays"
    meta = json.loads((path.parent / META).read_text("utf-8"))
    assert meta["base_iri"] == other


def test_an_unwritable_build_gets_a_temporary_store(
    tiny_store: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.rmtree(store_dir(tiny_store, BASE))
    real_mkdtemp = tempfile.mkdtemp

    def build_dir_read_only(prefix: str = "", dir: Path | None = None) -> str:
        if dir is not None:  # inside the build directory
            raise PermissionError("read-only file system")
        return real_mkdtemp(prefix=prefix)

    monkeypatch.setattr("kb.adapters.oxigraph_store.tempfile.mkdtemp", build_dir_read_only)
    with caplog.at_level(logging.WARNING):
        path = ensure_store(tiny_store, BASE, tiny_graph)
    assert "temporary copy" in caplog.text and str(tiny_store) not in str(path)
    assert len(open_store(path)) == 6


# --- the whole-graph dumps ---------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "syntax"), [("ttl", "turtle"), ("jsonld", "json-ld")])
def test_the_dump_is_written_once_beside_the_store(tiny_store: Path, fmt: str, syntax: str) -> None:
    store = store_dir(tiny_store, BASE) / "store"
    path = dump_file(store, fmt, PREFIXES)
    assert path.parent == store.parent and path.name == f"export.{fmt}"
    assert isomorphic(Graph().parse(path, format=syntax), tiny_graph())
    written = path.stat().st_mtime_ns
    assert dump_file(store, fmt, PREFIXES) == path and path.stat().st_mtime_ns == written
    assert not [p for p in store.parent.iterdir() if p.name.startswith(".")], "no temporary left"
    assert store_problem(store.parent, BASE) is None, "the store stays sound beside its dump"


def test_the_turtle_dump_uses_the_declared_prefixes(tiny_store: Path) -> None:
    text = dump_file(store_dir(tiny_store, BASE) / "store", "ttl", PREFIXES).read_text("utf-8")
    assert f"@prefix ygo: <{VOC}> ." in text and "ygo:Card" in text


def test_a_store_directory_that_cannot_be_written_gets_a_temporary_dump(
    tiny_store: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    store = store_dir(tiny_store, BASE) / "store"
    real_mkstemp = tempfile.mkstemp

    def store_dir_read_only(prefix: str = "", dir: Path | None = None) -> tuple[int, str]:
        if dir is not None and Path(dir) == store.parent:
            raise PermissionError("read-only file system")
        return real_mkstemp(prefix=prefix, dir=dir)

    monkeypatch.setattr("kb.adapters.oxigraph_store.tempfile.mkstemp", store_dir_read_only)
    with caplog.at_level(logging.WARNING):
        path = dump_file(store, "ttl", PREFIXES)
    assert "temporary copy" in caplog.text and path.parent != store.parent
    assert not (store.parent / "export.ttl").exists()
    assert isomorphic(Graph().parse(path, format="turtle"), tiny_graph())


def test_the_export_is_the_stores_dump_without_the_whole_graph(
    lite_built: Built, lite_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    shutil.copytree(lite_built.data_dir, data, symlinks=True)
    service = RulingsService(load_artifact(data), Settings(data_dir=data, corpus_dir=lite_corpus))

    def whole_graph(*args: object) -> None:
        raise AssertionError("the export built the whole graph")

    monkeypatch.setattr("kb.linked_data.rdf.graph_triples", whole_graph)  # imported late
    path = service.export("ttl")
    assert path == store_dir(service.artifact.path, BASE) / "export.ttl"
    path.unlink()  # gone while serving: refused, never written again here (a restart does)
    with pytest.raises(ArtifactError, match=r"export of build \w+ is missing"):
        service.export("ttl")
    assert not path.exists()


# --- answering -------------------------------------------------------------------------------


def test_execute_answers_and_bounds(tiny_store: Path) -> None:
    store = open_store(store_dir(tiny_store, BASE) / "store")
    body, media = execute(store, "SELECT ?c { ?c a ygo:Card } ORDER BY ?c", None, 10, PREFIXES)
    assert media == "application/sparql-results+json"
    rows = json.loads(body)["results"]["bindings"]
    assert [r["c"]["value"] for r in rows] == [str(RES[f"card/c{i}"]) for i in range(3)]
    with pytest.raises(TooManyResults, match="more than 2 results"):
        execute(store, "SELECT ?c { ?c a ygo:Card }", None, 2, PREFIXES)
    with pytest.raises(QueryRefused, match="SERVICE"):
        execute(store, "ASK { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }", None, 2, PREFIXES)
    with pytest.raises(MalformedQuery):
        execute(store, "SELECT ?c {", None, 2, PREFIXES)
    with pytest.raises(SparqlError, match="read-only"):
        execute(store, "CLEAR ALL", None, 2, PREFIXES)


def test_a_syntax_error_only_oxigraph_finds_is_located() -> None:
    text = "SELECT ?s WHERE {\n  ?s ?p ?o BROKEN\n}"
    located = engine_syntax_error(SyntaxError("error at 2:13: expected one of '.', '}'"), text)
    assert isinstance(located, MalformedQuery) and (located.line, located.column) == (2, 13)
    assert "?s ?p ?o BROKEN" in str(located) and "expected one of" in str(located)
    plain = engine_syntax_error(SyntaxError("something odd"), text)
    assert not isinstance(plain, MalformedQuery) and "something odd" in str(plain)


# --- with the real knowledge base ------------------------------------------------------------


def test_the_build_writes_the_store_with_every_triple(built: Built, rdf_graph: Graph) -> None:
    target = store_dir(built.artifact.path, BASE)
    assert store_problem(target, BASE) is None
    summary = built.artifact.manifest["sparql_store"]
    graph = rdf_graph
    assert summary["triples"] == len(graph) > 10_000
    stored = {q.triple for q in open_store(target / "store")}
    exported = {t.triple for t in ox.parse(graph.serialize(format="nt"), ox.RdfFormat.N_TRIPLES)}
    assert stored == exported, "the store holds exactly the RDF export's triples"


def test_workers_are_started_with_the_app(lite_built: Built, lite_corpus: Path) -> None:
    """No timing: the app's start opens the store and starts every worker in the background."""
    settings = Settings(data_dir=lite_built.data_dir, corpus_dir=lite_corpus)
    service = RulingsService(lite_built.artifact, settings)
    try:
        with TestClient(create_app(service), raise_server_exceptions=False) as client:
            warm = client.app.state.sparql_warm  # type: ignore[attr-defined]
            warm.join(60)
            assert not warm.is_alive()
            endpoint = service.sparql_endpoint()
            assert endpoint.ready_workers() == endpoint.workers == 2  # type: ignore[attr-defined]
            r = client.get("/sparql", params={"query": "ASK { ?c a ygo:Card }"})
            assert r.status_code == 200 and r.json()["boolean"] is True
            assert endpoint.ready_workers() == 2, "the query used a warm worker, none was added"
    finally:
        service.close()


class SlowBackend:
    """A SPARQL backend whose warm-up lasts until the test releases it."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.warming = threading.Event()

    def warm(self) -> None:
        self.warming.set()
        self.release.wait(30)

    def query(self, text: str, accept: str | None = None) -> tuple[str, str]:
        return '{"head": {}, "boolean": true}', "application/sparql-results+json"

    def close(self) -> None:
        self.release.set()


def test_the_app_serves_while_the_workers_warm(
    lite_built: Built, lite_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slow store (a rebuild, a loaded machine) does not delay the server's start."""
    service = RulingsService(
        lite_built.artifact, Settings(data_dir=lite_built.data_dir, corpus_dir=lite_corpus)
    )
    backend = SlowBackend()
    monkeypatch.setattr(service, "sparql_endpoint", lambda: backend)
    try:
        with TestClient(create_app(service), raise_server_exceptions=False) as client:
            assert backend.warming.wait(30), "the warm-up started with the app"
            assert client.get("/health").status_code == 200
            assert client.get("/sparql", params={"query": "ASK {}"}).json()["boolean"] is True
            assert client.app.state.sparql_warm.is_alive()  # type: ignore[attr-defined]
            backend.release.set()
    finally:
        backend.close()


def test_a_missing_store_in_an_existing_build_is_rebuilt_at_start(
    data_copy: Path, built: Built, caplog: pytest.LogCaptureFixture
) -> None:
    artifact = load_artifact(data_copy)
    shutil.rmtree(store_dir(artifact.path, BASE))
    # The full store takes tens of seconds to rebuild on a busy 2-core machine: the request
    # budget is raised so that the query waits for it (what is tested is the rebuild).
    settings = Settings(data_dir=data_copy, corpus_dir=REPO / "corpus", request_timeout=600)
    service = RulingsService(artifact, settings)
    try:
        with caplog.at_level(logging.WARNING), TestClient(create_app(service)) as client:
            r = client.get("/sparql", params={"query": "SELECT (COUNT(*) AS ?n) {?s ?p ?o}"})
        assert "rebuilding the SPARQL store" in caplog.text and "missing" in caplog.text
        n = r.json()["results"]["bindings"][0]["n"]["value"]
        assert int(n) == built.artifact.manifest["sparql_store"]["triples"]
    finally:
        service.close()


# --- the worker sandbox ----------------------------------------------------------------------


def test_a_worker_without_network_cannot_fetch_a_service(tmp_path: Path) -> None:
    """Oxigraph itself fetches SERVICE clauses; inside a worker there is no network to do it."""
    hits: list[str] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(500)
            self.end_headers()

        do_POST = do_GET

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/sparql"
        script = textwrap.dedent(
            f"""
            import pyoxigraph
            from kb.adapters.sparql_workers import isolate_network
            if not isolate_network():
                print("no-namespace")
                raise SystemExit
            try:
                list(pyoxigraph.Store().query("SELECT * {{ SERVICE <{url}> {{ ?s ?p ?o }} }}"))
                print("fetched")
            except OSError as exc:
                print("blocked", exc)
            """
        )
        run = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=REPO
        )
        server.shutdown()
    if run.stdout.startswith("no-namespace"):
        pytest.skip("this kernel allows no new network namespace (no CAP_SYS_ADMIN, no userns)")
    assert run.stdout.startswith("blocked"), run.stdout + run.stderr
    assert hits == []


def test_sparql_reaches_only_the_graph_it_was_given() -> None:
    """A literal IRI in a query is only a name: nothing outside the store is read."""
    store = ox.Store()
    store.add(ox.Quad(ox.NamedNode("urn:a"), ox.NamedNode("urn:b"), ox.Literal("c")))
    body, _ = execute(store, "ASK { <file:///etc/passwd> ?p ?o }", None, 10, PREFIXES)
    assert json.loads(body)["boolean"] is False


def test_a_query_before_the_workers_are_up_says_so(lite_built: Built) -> None:
    """A query that outwaits its bound while the workers start is told they are starting."""
    from kb.adapters.sparql_workers import SparqlEndpoint

    store = store_dir(lite_built.artifact.path, BASE) / "store"
    endpoint = SparqlEndpoint(store, 0.001, 10, declared_prefixes(BASE), workers=1)
    warm = threading.Thread(target=endpoint.warm)
    try:
        warm.start()
        while endpoint._starting == 0 and not endpoint.ready_workers():
            time.sleep(0.001)  # until the warm-up has counted the worker it starts
        assert endpoint._starting == 1, "the worker is still starting (a spawn takes far longer)"
        with pytest.raises(EndpointBusy, match="still starting"):
            endpoint.query("ASK {}")
        warm.join(60)
        endpoint.timeout = 30.0
        assert json.loads(endpoint.query("ASK {}")[0])["boolean"] is True
    finally:
        endpoint.close()
