"""The FastAPI application factory: routes are thin adapters over RulingsService."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query
from fastapi.responses import FileResponse, Response

from api import contract, mcp_http
from api import metrics as metrics_route
from api.contract import JSON_LD_BODY, TEXT_BODY, AskRequest, mark
from api.errors import envelope, error_responses, install_error_handlers, without_local_paths
from api.metrics import Metrics
from api.middleware import install_edges
from api.restarts import RestartCount
from api.routes import about, cards, docs, linked_data, training, web, wiki
from api.safe_strings import check_input_strings
from api.version import package_version
from kb.errors import ArtifactError
from kb.schemas import Answer, Health, LinkResult, SearchResult, Stats
from kb.service import RulingsService


def file_response(media: str, body: dict[str, Any] = TEXT_BODY) -> dict[int | str, dict[str, Any]]:
    """OpenAPI for a whole-graph download: its media type, no JSON model."""
    return {200: {"description": "The whole graph.", "content": {media: body}}}


Text = Query(description="The query, pt or en.", json_schema_extra=mark("text"))
K = Query(description="Number of hits (1..max_k).", json_schema_extra=mark("k"))
FormatQuery = Query(
    description="A format id declared in the manifest (see /stats).",
    json_schema_extra=mark("format"),
)


def create_app(
    service: RulingsService,
    *,
    stale_error: str | None = None,
    repaired: Sequence[str] = (),
    restarts: RestartCount | None = None,
) -> FastAPI:
    """An app serving one loaded knowledge base (read-only, stateless: safe to replicate).

    `repaired`: what the start found damaged and rebuilt (warnings for /health); `restarts`: the
    supervisor's count of worker restarts (`serve --workers N`), for /health and /metrics."""
    app = FastAPI(
        title="ygo-rulings",
        version=package_version(),
        description="Yu-Gi-Oh! rulings knowledge base: search, linking, sourced answers.",
        docs_url=None,  # docs.register serves both pages from local assets
        redoc_url=None,
        dependencies=[Depends(check_input_strings)],
    )
    install_error_handlers(app)
    contract.install(app, service)
    restarts = restarts or RestartCount()
    metrics = Metrics(restarts)
    app.state.service = service
    app.state.metrics = metrics
    settings = service.settings
    public_error = (
        without_local_paths(stale_error, (settings.corpus_dir, settings.data_dir))
        if stale_error is not None
        else None
    )
    roots = (settings.corpus_dir, settings.data_dir)
    warnings = [without_local_paths(w, roots) for w in repaired]

    warning = getattr(service.index.embedder, "warning", None)
    model_warning = (
        without_local_paths(warning, (settings.corpus_dir, settings.data_dir))
        if warning is not None
        else None
    )

    @app.get("/health", response_model=Health)
    def health(response: Response) -> dict[str, Any]:
        manifest = service.artifact.manifest
        response.headers["cache-control"] = "no-store"
        return {
            "ok": True,
            "version": app.version,
            "build_id": manifest.get("build_id"),
            "corpus_hash": manifest.get("corpus_hash"),
            "stale": stale_error is not None,
            "stale_error": public_error,
            "model": getattr(service.index.embedder, "name", None),
            "model_warning": model_warning,
            "reasoners": service.reasoner_status(),
            "repaired": warnings,
            "worker_restarts": restarts.value(),
        }

    @app.get("/search", response_model=SearchResult, responses=error_responses(422))
    def search(
        q: Annotated[str, Text],
        k: Annotated[int, K] = 10,
        format: Annotated[str | None, FormatQuery] = None,
        type: Annotated[
            str | None,
            Query(
                description="Passage, Example or Step (comma-separated, any case).",
                json_schema_extra=mark("hit-types"),
            ),
        ] = None,
    ) -> dict[str, Any]:
        return service.search(q, k=k, format=format, type=type)

    # exclude_unset: a key the service leaves out (a step's `fact`) stays out, as in the CLI.
    @app.post(
        "/ask",
        response_model=Answer,
        response_model_exclude_unset=True,
        responses=error_responses(400, 422),
    )
    def ask(body: AskRequest) -> dict[str, Any]:
        answer = service.ask(body.question, format=body.format, k=body.k)
        metrics.count_answer(answer)
        return answer

    @app.get("/link", response_model=LinkResult, responses=error_responses(422))
    def link(
        q: Annotated[str, Query(description="Text to link.", json_schema_extra=mark("text"))],
    ) -> dict[str, Any]:
        return service.link(q)

    @app.get("/stats", response_model=Stats)
    def stats() -> dict[str, Any]:
        return service.stats()

    @app.get(
        "/export.ttl",
        response_class=Response,
        responses={**file_response("text/turtle"), **error_responses(503, json_route=False)},
    )
    def export_ttl() -> Response:
        return export_file("ttl", "text/turtle; charset=utf-8")

    @app.get(
        "/export.jsonld",
        response_class=Response,
        responses={
            **file_response("application/ld+json", JSON_LD_BODY),
            **error_responses(503, json_route=False),
        },
    )
    def export_jsonld() -> Response:
        return export_file("jsonld", "application/ld+json")

    def export_file(fmt: str, media: str) -> Response:
        """The build's export, unless it is missing or damaged: then 503, never the file."""
        try:
            path = service.export(fmt)
        except ArtifactError as exc:
            return envelope(503, str(exc), code="export_unavailable")
        return FileResponse(path, media_type=media)

    for group in (
        cards,
        about,
        linked_data,
        wiki,
        training,
        web,
    ):  # cards before wiki's /cards/{id}
        group.register(app, service)
    docs.register(app)
    mcp_http.mount(app, service)
    metrics_route.register(app, metrics, settings.metrics_token)
    install_edges(app, service, metrics)
    return app
