"""Prometheus metrics of one app: `GET /metrics` in the Prometheus text format.

Request counts and latency histograms per route template (`handler="/id/{node_id:path}"`, never
the raw path; unknown paths are `none`) come from prometheus-fastapi-instrumentator
(`http_requests_total`, `http_request_duration_seconds`, `http_request_duration_highr_seconds`,
request and response sizes); this module adds the answers of `/ask` by deciding reasoner and
verdict (`ygo_answers_total`), the SPARQL requests stopped (`ygo_sparql_stops_total`, reason
`timeout`, `busy` or `restart`) and the workers `serve --workers N` restarted
(`ygo_worker_restarts_total`, the supervisor's count, api.restarts). Each app has its own registry (several apps in one process never
mix). With several worker processes, set PROMETHEUS_MULTIPROC_DIR (prometheus-client's
multiprocess mode) so that /metrics sums every worker. With the `metrics_token` setting
(YGO_METRICS_TOKEN) set, /metrics needs `Authorization: Bearer <token>` (401 otherwise).
"""

from __future__ import annotations

import hmac
import os
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    generate_latest,
    multiprocess,
)
from prometheus_fastapi_instrumentator import Instrumentator

from api.errors import envelope, error_responses
from api.restarts import RestartCollector, RestartCount

METRICS_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Every metric in the Prometheus text exposition format.",
        "content": {"text/plain": {"schema": {"type": "string"}}},
    },
    **error_responses(401, json_route=False),
}


class Metrics:
    """The registry of one app and the counters the routes update."""

    def __init__(self, restarts: RestartCount | None = None) -> None:
        self.registry = CollectorRegistry()
        self.restarts = RestartCollector(restarts or RestartCount())
        self.registry.register(self.restarts)
        self.answers = Counter(
            "ygo_answers",
            "Answers of POST /ask by the reasoner that decided and the verdict.",
            ["reasoner", "verdict"],
            registry=self.registry,
        )
        self.sparql_stops = Counter(
            "ygo_sparql_stops",
            "SPARQL requests stopped: timeout (ran past sparql_timeout), busy (no room) or "
            "restart (the query's worker died).",
            ["reason"],
            registry=self.registry,
        )

    def count_answer(self, answer: dict[str, Any]) -> None:
        verdict = answer.get("verdict")
        self.answers.labels(str(answer.get("reasoner") or "none"), verdict or "none").inc()

    def instrument(self, app: FastAPI) -> None:
        """Add the request metrics middleware to the app (per route template)."""
        Instrumentator(
            should_group_status_codes=False,
            excluded_handlers=["/metrics"],
            registry=self.registry,
        ).instrument(app)

    def exposition(self) -> bytes:
        """Every metric as Prometheus text (summed over workers in multiprocess mode)."""
        if "PROMETHEUS_MULTIPROC_DIR" in os.environ:
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
            registry.register(self.restarts)  # the supervisor's count: one value, not summed
            return generate_latest(registry)
        return generate_latest(self.registry)


def register(app: FastAPI, metrics: Metrics, token: str | None = None) -> None:
    """Add `GET /metrics` (never cached: it is live state); with a `token` (the `metrics_token`
    setting) only a request with `Authorization: Bearer <token>` reads it, others get 401."""

    @app.get("/metrics", response_class=Response, responses=METRICS_RESPONSES, tags=["operations"])
    def prometheus_metrics(request: Request) -> Response:
        """Request counts and latencies per route, answers by reasoner and verdict, SPARQL stops."""
        if token and not bearer_matches(request.headers.get("authorization"), token):
            return unauthorized()
        return Response(
            metrics.exposition(),
            media_type=CONTENT_TYPE_LATEST,
            headers={"cache-control": "no-store"},
        )


def bearer_matches(header: str | None, token: str) -> bool:
    """Whether an Authorization header carries exactly this bearer token (compared in constant
    time)."""
    scheme, _, given = (header or "").strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode("utf-8", "replace"), token.encode("utf-8"))


def unauthorized() -> Response:
    """The 401 envelope of /metrics without its token."""
    response = envelope(
        401, "GET /metrics needs the metrics token: send Authorization: Bearer <token>"
    )
    response.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
    response.headers["cache-control"] = "no-store"
    return response
