"""End to end: YGO_SPARQL_ENDPOINT names the real `oxigraph` server, loaded from the export.

The documented deployment, step by step: `ygo-rulings export --format ttl --out dump.ttl`,
`oxigraph load --location DIR --file dump.ttl`, `oxigraph serve-read-only --location DIR`; then
the SPARQL tests of test_linked_data run again, unchanged, through an app whose endpoint forwards
to that server (they pick up this module's `client` and `quick_service` fixtures).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from fastapi.testclient import TestClient
from test_linked_data import (  # type: ignore[import-not-found]
    test_a_runaway_query_is_stopped_and_the_app_stays_responsive,
    test_concurrent_queries_all_answer,
    test_construct_and_describe_are_graphs,
    test_graph_results_use_the_declared_prefixes,
    test_malformed_query_is_a_400_with_the_position,
    test_nothing_is_ever_fetched,
    test_post_form_and_body_answer_like_get,
    test_predeclared_prefixes_ask_and_aggregates,
    test_protocol_errors,
    test_queries_reaching_outside_or_too_big_are_refused,
    test_select_as_json_xml_and_csv,
    test_select_as_tsv,
    test_update_requests_are_refused,
    test_updates_are_refused,
)
from tests_support import REPO, free_port  # type: ignore[import-not-found]

from api.app import create_app
from kb.adapters.sparql_remote import RemoteEndpoint
from kb.config import Settings
from kb.service import RulingsService

if TYPE_CHECKING:
    from conftest import Built

pytestmark = pytest.mark.e2e

REUSED = [
    test_a_runaway_query_is_stopped_and_the_app_stays_responsive,
    test_concurrent_queries_all_answer,
    test_construct_and_describe_are_graphs,
    test_graph_results_use_the_declared_prefixes,
    test_malformed_query_is_a_400_with_the_position,
    test_nothing_is_ever_fetched,
    test_post_form_and_body_answer_like_get,
    test_predeclared_prefixes_ask_and_aggregates,
    test_protocol_errors,
    test_queries_reaching_outside_or_too_big_are_refused,
    test_select_as_json_xml_and_csv,
    test_select_as_tsv,
    test_update_requests_are_refused,
    test_updates_are_refused,
]
SERVER_TIMEOUT_S = 5  # the server's own bound on a query (--timeout-s)


def tool(name: str) -> str:
    """A command installed beside this interpreter (the venv's bin), else on PATH."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.skip(f"the `{name}` command is not installed (pip install oxigraph)")
    return found


@pytest.fixture(scope="module")
def oxigraph_url(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`oxigraph serve-read-only` on loopback, loaded from `ygo-rulings export`: its query URL."""
    oxigraph = tool("oxigraph")
    try:
        subprocess.run([oxigraph, "--version"], capture_output=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"the oxigraph binary cannot run here: {exc}")
    work = tmp_path_factory.mktemp("oxigraph")
    data = work / "data"
    shutil.copytree(built.data_dir, data, symlinks=True)
    dump = work / "dump.ttl"
    where = ["--data", str(data), "--corpus", str(REPO / "corpus")]
    export = [tool("ygo-rulings"), "export", "--format", "ttl", "--out", str(dump), *where]
    subprocess.run(export, check=True, capture_output=True, timeout=900)
    load = [oxigraph, "load", "--location", str(work / "db"), "--file", str(dump)]
    subprocess.run(load, check=True, capture_output=True, timeout=600)
    port = free_port()
    serve = [oxigraph, "serve-read-only", "--location", str(work / "db")]
    serve += ["--bind", f"127.0.0.1:{port}", "--timeout-s", str(SERVER_TIMEOUT_S)]
    proc = subprocess.Popen(serve, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/query"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                message = proc.stderr.read().decode() if proc.stderr else ""
                pytest.skip(f"the oxigraph server exited at start: {message[:500]}")
            try:
                if httpx.get(url, params={"query": "ASK {}"}, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the oxigraph server did not answer in 60 s")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def remote(built: Built, url: str, **settings: float) -> RulingsService:
    options = Settings(
        data_dir=built.data_dir, corpus_dir=REPO / "corpus", sparql_endpoint=url, **settings
    )
    return RulingsService(built.artifact, options)


@pytest.fixture(scope="module")
def remote_service(built: Built, oxigraph_url: str) -> RulingsService:
    # The reused refusal tests run whole-graph queries through the server: on a busy machine
    # they may take longer than the default request budget, which is not what they test.
    return remote(built, oxigraph_url, request_timeout=120.0)


@pytest.fixture(scope="module")
def client(remote_service: RulingsService) -> TestClient:
    """What the reused tests query: an app whose /sparql forwards to the oxigraph server."""
    return TestClient(create_app(remote_service), raise_server_exceptions=False)


@pytest.fixture
def quick_service(built: Built, oxigraph_url: str) -> Iterator[RulingsService]:
    """The reused runaway test's service: queries through the server, stopped after 1 s."""
    service = remote(built, oxigraph_url, sparql_timeout=1.0)
    yield service
    service.close()


def test_the_endpoint_is_the_server(remote_service: RulingsService, built: Built) -> None:
    assert isinstance(remote_service.sparql_endpoint(), RemoteEndpoint)
    body, _ = remote_service.sparql("SELECT (COUNT(*) AS ?n) { ?s ?p ?o }", "text/csv")
    assert int(body.split()[1]) == built.artifact.manifest["sparql_store"]["triples"]


def test_head_through_the_server(client: TestClient) -> None:
    get = client.get("/sparql", params={"query": "ASK { ?s ?p ?o }"})
    head = client.head("/sparql", params={"query": "ASK { ?s ?p ?o }"})
    assert head.status_code == get.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]


def test_an_unreachable_server_is_a_503(built: Built) -> None:
    service = remote(built, f"http://127.0.0.1:{free_port()}/query")
    client = TestClient(create_app(service), raise_server_exceptions=False)
    r = client.get("/sparql", params={"query": "ASK {}"})
    assert r.status_code == 503 and "did not answer" in r.json()["error"]
    assert r.headers["retry-after"] == "1"
