"""Prometheus metrics of one app: `GET /metrics` in the Prometheus text format.

Request counts and latency histograms per route template (`handler="/id/{node_id:path}"`, never
the raw path; unknown paths are `none`) come from prometheus-fastapi-instrumentator
(`http_requests_total`, `http_request_duration_seconds`, `http_request_duration_highr_seconds`,
request and response sizes); this module adds the answers of `/ask` by deciding reasoner and
verdict (`ygo_answers_total`) and the SPARQL requests stopped (`ygo_sparql_stops_total`, reason
`timeout` or `busy`). Each app has its own registry (several apps in one process never mix).
With several worker processes, set PROMETHEUS_MULTIPROC_DIR (prometheus-client's multiprocess
mode) so that /metrics sums every worker.
"""

from __future__ import annotations

import os
from typing import Any

from fastapi import FastAPI
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    generate_latest,
    multiprocess,
)
from prometheus_fastapi_instrumentator import Instrumentator

METRICS_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Every metric in the Prometheus text exposition format.",
        "content": {"text/plain": {"schema": {"type": "string"}}},
    }
}


class Metrics:
    """The registry of one app and the counters the routes update."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.answers = Counter(
            "ygo_answers",
            "Answers of POST /ask by the reasoner that decided and the verdict.",
            ["reasoner", "verdict"],
            registry=self.registry,
        )
        self.sparql_stops = Counter(
            "ygo_sparql_stops",
            "SPARQL requests stopped: timeout (ran past sparql_timeout) or busy (no room).",
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
            return generate_latest(registry)
        return generate_latest(self.registry)


def register(app: FastAPI, metrics: Metrics) -> None:
    """Add `GET /metrics` (never cached: it is live state)."""

    @app.get("/metrics", response_class=Response, responses=METRICS_RESPONSES, tags=["operations"])
    def prometheus_metrics() -> Response:
        """Request counts and latencies per route, answers by reasoner and verdict, SPARQL stops."""
        return Response(
            metrics.exposition(),
            media_type=CONTENT_TYPE_LATEST,
            headers={"cache-control": "no-store"},
        )
