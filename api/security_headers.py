"""Security headers on every response, and a Content-Security-Policy on every HTML page.

Every response gets `X-Content-Type-Options: nosniff` (a browser never reads a JSON or Turtle body
as a script or page), `Referrer-Policy: same-origin` (a question in the page's URL never leaves
for another site) and `X-Frame-Options: DENY`. An HTML response gets a Content-Security-Policy
unless its route set its own (the API docs pages do, api.routes.docs): only this origin's
scripts, styles, images (and `data:` images, the wiki pages' inline favicon), fetches and forms;
no plugins, no `<base>`, no framing (`frame-ancestors 'none'`, which X-Frame-Options says to
older browsers). The pages' own inline styles (the wiki page's and the vocabulary page's
`<style>`) are allowed by their sha256 hashes, computed here from the templates themselves, so a
style or script injected into a page would not run; nothing is moved out of the pages.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

EVERY_RESPONSE = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
}
CSP = "content-security-policy"
# An inline <script> (without src) or <style> block of a page: what a policy must name by hash.
INLINE = re.compile(
    r"<(script|style)\b(?![^>]*\bsrc\s*=)[^>]*>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL
)


def source_hash(text: str) -> str:
    """The CSP source expression allowing one inline block whose content is `text`."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def inline_blocks(html: str) -> list[tuple[str, str]]:
    """(`script` or `style`, content) of every inline block of a page."""
    return [(kind.lower(), content) for kind, content in INLINE.findall(html)]


def content_policy(
    *,
    scripts: Iterable[str] = (),
    styles: Iterable[str] = (),
    inline_styles: bool = False,
    blob_workers: bool = False,
) -> str:
    """A page's Content-Security-Policy: this origin only, plus the hashes of the inline scripts
    and styles it names (`scripts`, `styles`: their contents); `inline_styles` allows any inline
    style (for a vendored page that writes its styles at run time), `blob_workers` web workers
    made from `blob:` URLs."""
    script_src = " ".join(["'self'", *sorted({source_hash(s) for s in scripts})])
    style_hashes = [] if inline_styles else sorted({source_hash(s) for s in styles})
    style_src = " ".join(["'self'", *(["'unsafe-inline'"] if inline_styles else style_hashes)])
    directives = [
        "default-src 'none'",
        f"script-src {script_src}",
        f"style-src {style_src}",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "manifest-src 'self'",
        *(["worker-src 'self' blob:"] if blob_workers else []),
        "form-action 'self'",
        "base-uri 'none'",
        "object-src 'none'",
        "frame-ancestors 'none'",
    ]
    return "; ".join(directives)


def page_policy(*templates: str) -> str:
    """The policy of pages made from these templates: their inline blocks allowed by hash."""
    blocks = [block for html in templates for block in inline_blocks(html)]
    return content_policy(
        scripts=[text for kind, text in blocks if kind == "script"],
        styles=[text for kind, text in blocks if kind == "style"],
    )


class SecurityHeaders:
    """Add EVERY_RESPONSE's headers to every HTTP response, and `html_policy` as the
    Content-Security-Policy of an HTML response that has none of its own."""

    def __init__(self, app: ASGIApp, html_policy: str) -> None:
        self.app = app
        self.html_policy = html_policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in EVERY_RESPONSE.items():
                    headers.setdefault(name, value)
                kind = headers.get("content-type", "").split(";")[0].strip().lower()
                if kind == "text/html":
                    headers.setdefault(CSP, self.html_policy)
            await send(message)

        await self.app(scope, receive, send_secured)
