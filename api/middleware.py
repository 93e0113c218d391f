"""The HTTP edge around the routes, in one place: what runs before and after every request.

Outermost first:
  SecurityHeaders  nosniff, Referrer-Policy, X-Frame-Options; CSP on HTML   (api.security_headers)
  RequestLog    request id (X-Request-ID in and out), one JSON access line   (api.logs)
  metrics       request counts and latencies per route template             (api.metrics)
  ReadOnlyCors  CORS (any origin, GET/HEAD) and OPTIONS on read-only routes (api.cors)
  TimeBudget    504 after `request_timeout` seconds                         (api.limits)
  HttpCaching   ETag, Cache-Control, 304, HEAD on every GET                 (api.caching)
  BodyLimit     413 past `max_body_bytes` (`max_sparql_body_bytes` on /sparql)
and, inside FastAPI, the app-wide check of every input string (api.safe_strings).
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from api.caching import HttpCaching, cache_seed
from api.cors import ReadOnlyCors
from api.errors import document_edge_statuses
from api.limits import BodyLimit, TimeBudget
from api.logs import RequestLog, install_json_logging
from api.metrics import Metrics
from api.routes.linked_data import VOCAB_PAGE
from api.routes.training import TRAINING_PATHS
from api.routes.web import INDEX_HTML
from api.security_headers import SecurityHeaders, page_policy
from kb.presentation.markup import PAGE_CSS
from kb.service import RulingsService

# Settings that never change a response body (where and how the server runs).
# (The metrics token is a secret: not even its digest goes into an ETag.)
NOT_IN_BODIES = frozenset(
    {"host", "port", "data_dir", "corpus_dir", "log_json", "request_timeout", "metrics_token"}
    | {"database_url", "training_token_days", "max_history_bytes"}
)
CODE_ROOTS = ("api", "kb", "ingest")
# The whole-graph downloads: the store dumped to a file once per build (seconds with every card),
# then sent from disk; no request can make them costlier, so no time budget cuts them off.
UNBUDGETED = frozenset({"/export.ttl", "/export.jsonld"})
# Live state: never cached, so no 304 either.
UNCACHED = frozenset({"/health", "/metrics"}) | TRAINING_PATHS


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the code that renders bodies (a new release is a new ETag, same build or not)."""
    repo = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for root in CODE_ROOTS:
        for path in sorted((repo / root).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".html", ".js", ".css", ".yaml"):
                digest.update(str(path.relative_to(repo)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def install_edges(app: FastAPI, service: RulingsService, metrics: Metrics) -> None:
    """Add the edge middleware (added innermost first), its OpenAPI statuses and JSON logs."""
    settings = service.settings
    build_id = str(service.artifact.manifest.get("build_id") or "unbuilt")
    shaping = [(k, v) for k, v in asdict(settings).items() if k not in NOT_IN_BODIES]
    app.add_middleware(
        BodyLimit,
        default=settings.max_body_bytes,
        limits={"/sparql": settings.max_sparql_body_bytes, "/history": settings.max_history_bytes},
    )
    app.add_middleware(
        HttpCaching,
        build_id=build_id,
        seed=cache_seed(build_id, shaping, code_digest()),
        max_age=settings.cache_max_age,
    )
    app.add_middleware(TimeBudget, seconds=settings.request_timeout, exempt=UNBUDGETED)
    app.add_middleware(ReadOnlyCors, routes=app.router.routes)
    metrics.instrument(app)  # outside the budget and the cache: 504s and 304s are counted
    app.add_middleware(RequestLog)
    app.add_middleware(SecurityHeaders, html_policy=html_page_policy())
    document_edge_statuses(app, UNCACHED)
    if settings.log_json:
        log_as_json_while_running(app)


def html_page_policy() -> str:
    """The Content-Security-Policy of the app's own HTML pages (the single-page front end, the
    vocabulary page, the wiki pages): this origin only, plus their inline styles by hash."""
    return page_policy(
        INDEX_HTML.read_text("utf-8"),
        VOCAB_PAGE.format(ns="", classes="", properties=""),
        f"<style>{PAGE_CSS}</style>",
    )


def log_as_json_while_running(app: FastAPI) -> None:
    """Install the JSON log handler when the app starts (in each worker process)."""
    outer = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        install_json_logging()
        async with outer(app_) as state:
            yield state

    app.router.lifespan_context = lifespan
