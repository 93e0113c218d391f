"""Writers of a `kb.presentation.render.Page`: MediaWiki wikitext, Markdown and a self-contained HTML page.

Source text never reaches the output unescaped: wikitext wraps it in `<nowiki>` (with `&` and `<`
as entities inside), Markdown backslash-escapes its punctuation, HTML goes through `html.escape`.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict

from kb.presentation.page import Item, Page, Part, Reference

MARKUPS: tuple[str, ...] = ("wikitext", "markdown", "html", "json")
MEDIA_TYPES: dict[str, str] = {
    "wikitext": "text/plain; charset=utf-8",
    "markdown": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "json": "application/json",
}

# --- wikitext ------------------------------------------------------------------------------
_WIKI_SPECIAL = re.compile(
    r"[\[\]{}|<>&~]|''|__|^[\s*#:;=!'\-]|'$|\s$|https?://|(?:ISBN|RFC|PMID) "
)


def wiki_escape(text: str) -> str:
    """Source text as literal wikitext: `<nowiki>` around anything markup could misread."""
    if not text or not _WIKI_SPECIAL.search(text):
        return text
    inner = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"<nowiki>{inner}</nowiki>"


class _WikiRefs:
    """`<ref name="rN">…</ref>` on first use of a reference, `<ref name="rN" />` afterwards."""

    def __init__(self, references: tuple[Reference, ...]) -> None:
        self.references = references
        self.used: set[int] = set()

    def __call__(self, ref: int | None) -> str:
        if ref is None:
            return ""
        if ref in self.used:
            return f'<ref name="r{ref}" />'
        self.used.add(ref)
        r = self.references[ref - 1]
        return (
            f'<ref name="r{ref}">[{r.permalink} {wiki_escape(r.id)}], '
            f"{wiki_escape(r.document)}:{r.start}–{r.end}</ref>"
        )


def to_wikitext(page: Page) -> str:
    """A paste-ready MediaWiki page (the Cite extension's `<ref>`/`<references />`)."""
    cite = _WikiRefs(page.references)
    badges = " ".join(
        f'<span style="background:#234;color:#fff;padding:0 .4em;border-radius:3px">'
        f"{wiki_escape(b.label)}</span>"
        for b in page.badges
    )
    lines = [f"'''{wiki_escape(page.title)}'''" + cite(page.source_ref)]
    if page.subtitle:
        lines[0] += f" (''{wiki_escape(page.subtitle)}'')"
    meta = [f"'''Formato:''' {badges}"] if badges else []
    if page.document:
        meta.append(f"'''Documento:''' {wiki_escape(page.document)}")
    meta.append(f"'''Permalink:''' [{page.permalink} {wiki_escape(page.id)}]")
    lines += ["", " · ".join(meta)]
    if page.facts:
        lines += ["", '{| class="wikitable"', "! Campo !! Valor"]
        for key, value in page.facts:
            lines += ["|-", f"| {wiki_escape(key)} || {wiki_escape(value)}"]
        lines.append("|}")
    for part in page.parts:
        lines += ["", _wiki_heading(part)]
        lines += list(_wiki_items(part.items, "#" if part.ordered else "*", cite))
    if page.references:
        lines += ["", "== Referências ==", "<references />"]
    return "\n".join(lines) + "\n"


def _wiki_heading(part: Part) -> str:
    marks = "=" * part.level
    return f"{marks} {wiki_escape(part.heading)} {marks}"


def _wiki_items(
    items: tuple[Item, ...], prefix: str, cite: Callable[[int | None], str]
) -> Iterator[str]:
    for item in items:
        head = f"[{item.link.href} {wiki_escape(item.link.text)}] " if item.link else ""
        label = f"''{wiki_escape(item.label)}:'' " if item.label else ""
        yield f"{prefix} {label}{head}{wiki_escape(item.text)}{cite(item.ref)}".rstrip()
        yield from _wiki_items(item.children, prefix + "*", cite)


# --- markdown ------------------------------------------------------------------------------
_MD_INLINE = re.compile(r"([\\`*_\[\]<>|~&])")
_MD_LEADING = re.compile(r"^(\s*)(?:([#>+=\-])|(\d+)([.)]))")


def md_escape(text: str) -> str:
    """Source text as literal CommonMark/GFM: punctuation backslash-escaped, no leading markers."""
    escaped = _MD_INLINE.sub(lambda m: "&amp;" if m.group(1) == "&" else "\\" + m.group(1), text)
    return _MD_LEADING.sub(_md_leading, escaped)


def _md_leading(m: re.Match[str]) -> str:
    if m.group(2):
        return f"{m.group(1)}\\{m.group(2)}"
    return f"{m.group(1)}{m.group(3)}\\{m.group(4)}"


def to_markdown(page: Page) -> str:
    """A GitHub-flavoured Markdown page with footnote citations."""
    ref = _md_ref
    lines = [f"# {md_escape(page.title)}{ref(page.source_ref)}"]
    if page.subtitle:
        lines += ["", f"*{md_escape(page.subtitle)}*"]
    meta = []
    if page.badges:
        meta.append("**Formato:** " + " ".join(f"`{b.label}`" for b in page.badges))
    if page.document:
        meta.append(f"**Documento:** {md_escape(page.document)}")
    meta.append(f"**Permalink:** [{md_escape(page.id)}]({page.permalink})")
    lines += ["", " · ".join(meta)]
    if page.facts:
        lines += ["", "| Campo | Valor |", "| --- | --- |"]
        lines += [f"| {md_escape(k)} | {md_escape(v)} |" for k, v in page.facts]
    for part in page.parts:
        lines += ["", f"{'#' * part.level} {md_escape(part.heading)}"]
        if part.items:
            lines.append("")
            lines += list(_md_items(part.items, part.ordered, ""))
    if page.references:
        lines += ["", "## Referências", ""]
        for i, r in enumerate(page.references, 1):
            lines.append(
                f"[^{i}]: [{md_escape(r.id)}]({r.permalink}), {md_escape(r.document)}:{r.start}–{r.end}"
            )
    return "\n".join(lines) + "\n"


def _md_ref(ref: int | None) -> str:
    return f"[^{ref}]" if ref is not None else ""


def _md_items(items: tuple[Item, ...], ordered: bool, indent: str) -> Iterator[str]:
    for i, item in enumerate(items, 1):
        marker = f"{i}." if ordered else "-"
        head = f"[{md_escape(item.link.text)}]({item.link.href}) " if item.link else ""
        label = f"*{md_escape(item.label)}:* " if item.label else ""
        yield f"{indent}{marker} {label}{head}{md_escape(item.text)}{_md_ref(item.ref)}".rstrip()
        yield from _md_items(item.children, False, indent + " " * (len(marker) + 1))


# --- html ----------------------------------------------------------------------------------
_CSS = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222}"
    ".badge{background:#234;color:#fff;padding:0 .4em;border-radius:3px;font-size:.85em}"
    ".meta{color:#555}.label{font-style:italic;color:#555}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}sup a{text-decoration:none}"
    ".refs{font-size:.9em}.refs q{color:#444}"
)


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def to_html(page: Page) -> str:
    """A self-contained HTML5 page (inline CSS, no scripts); all text is escaped."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="pt">',
        '<head><meta charset="utf-8">',
        f"<title>{_e(page.title)}</title>",
        f"<style>{_CSS}</style></head>",
        "<body>",
        f"<h1>{_e(page.title)}{_html_ref(page.source_ref)}</h1>",
    ]
    if page.subtitle:
        out.append(f"<p><em>{_e(page.subtitle)}</em></p>")
    meta = [" ".join(f'<span class="badge">{_e(b.label)}</span>' for b in page.badges)]
    if page.document:
        meta.append(f"Documento: {_e(page.document)}")
    meta.append(f'Permalink: <a href="{_e(page.permalink)}">{_e(page.id)}</a>')
    out.append(f'<p class="meta">{" · ".join(m for m in meta if m)}</p>')
    if page.facts:
        rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in page.facts)
        out.append(f"<table>{rows}</table>")
    for part in page.parts:
        out.append(f"<h{part.level}>{_e(part.heading)}</h{part.level}>")
        if part.items:
            out.append(_html_list(part.items, part.ordered))
    if page.references:
        out.append('<h2>Referências</h2><ol class="refs">')
        for i, r in enumerate(page.references, 1):
            out.append(
                f'<li id="ref-{i}"><a href="{_e(r.permalink)}">{_e(r.id)}</a>, '
                f"{_e(r.document)}:{r.start}–{r.end}: <q>{_e(r.text)}</q></li>"
            )
        out.append("</ol>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


def _html_ref(ref: int | None) -> str:
    return f'<sup><a href="#ref-{ref}">[{ref}]</a></sup>' if ref is not None else ""


def _html_list(items: tuple[Item, ...], ordered: bool) -> str:
    tag = "ol" if ordered else "ul"
    lis = []
    for item in items:
        label = f'<span class="label">{_e(item.label)}:</span> ' if item.label else ""
        head = f'<a href="{_e(item.link.href)}">{_e(item.link.text)}</a> ' if item.link else ""
        nested = _html_list(item.children, False) if item.children else ""
        lis.append(f"<li>{label}{head}{_e(item.text)}{_html_ref(item.ref)}{nested}</li>")
    return f"<{tag}>{''.join(lis)}</{tag}>"


# --- dispatch ------------------------------------------------------------------------------
def write(page: Page, markup: str) -> str:
    """The page in one of MARKUPS (json: the page's data)."""
    if markup == "wikitext":
        return to_wikitext(page)
    if markup == "markdown":
        return to_markdown(page)
    if markup == "html":
        return to_html(page)
    if markup == "json":
        return json.dumps(asdict(page), ensure_ascii=False, indent=2) + "\n"
    raise ValueError(f"unknown markup {markup!r}")
