"""Routes: the API's own documentation, `/docs` (Swagger UI) and `/redoc` (ReDoc), offline.

FastAPI's default pages load their scripts, styles, fonts and favicon from CDNs, so they are
blank without a network. These pages name only this app's URLs: Swagger UI's files come from the
`swagger-ui-bundle-v2` package (mounted at /docs/assets), ReDoc's standalone bundle is vendored
under `api/static/vendor/redoc/` with its licence (served by the page's /static mount).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from api.security_headers import CSP, content_policy, inline_blocks

SWAGGER_ASSETS = "/docs/assets"
REDOC_JS = "/static/vendor/redoc/redoc.standalone.js"
FAVICON = f"{SWAGGER_ASSETS}/favicon-32x32.png"


def swagger_ui_dir() -> Path:
    """Where the installed Swagger UI distribution is (a dependency, imported lazily)."""
    from swagger_ui_bundle import swagger_ui_path

    return Path(str(swagger_ui_path))


def register(app: FastAPI) -> None:
    """Serve /docs and /redoc from local assets (create the app with docs_url=redoc_url=None),
    each with a Content-Security-Policy allowing its one inline script by hash (see
    api.security_headers; both bundles write styles at run time, so inline styles are allowed,
    and ReDoc runs its search in a `blob:` worker)."""
    openapi_url = app.openapi_url or "/openapi.json"
    app.mount(SWAGGER_ASSETS, StaticFiles(directory=swagger_ui_dir()), name="swagger-ui")
    swagger = secured(
        get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} — Swagger UI",
            swagger_js_url=f"{SWAGGER_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{SWAGGER_ASSETS}/swagger-ui.css",
            swagger_favicon_url=FAVICON,
        )
    )
    redoc = secured(
        get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} — ReDoc",
            redoc_js_url=REDOC_JS,
            redoc_favicon_url=FAVICON,
            with_google_fonts=False,
        ),
        blob_workers=True,
    )

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return HTMLResponse(*swagger)

    @app.get("/redoc", include_in_schema=False)
    def redoc_page() -> HTMLResponse:
        return HTMLResponse(*redoc)


def secured(page: HTMLResponse, *, blob_workers: bool = False) -> tuple[str, int, dict[str, str]]:
    """The page's HTML, status and a Content-Security-Policy naming its own inline scripts by
    hash (a response is built per request: middleware adds headers to it)."""
    html = bytes(page.body).decode("utf-8")
    scripts = [text for kind, text in inline_blocks(html) if kind == "script"]
    policy = content_policy(scripts=scripts, inline_styles=True, blob_workers=blob_workers)
    return html, page.status_code, {CSP: policy}
