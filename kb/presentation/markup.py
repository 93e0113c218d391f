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

from kb.presentation.codes import label
from kb.presentation.icon import favicon_data_uri
from kb.presentation.page import Item, Link, Page, Part, Reference

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
    """`<ref name="…">…</ref>` on first use of a reference, `<ref name="…" />` afterwards.

    The name and the content depend on the cited node alone, so a node cited by two pages
    pasted into one article is one reference (MediaWiki merges same-name, same-content refs)."""

    def __init__(self, references: tuple[Reference, ...]) -> None:
        self.references = references
        self.used: set[int] = set()

    def __call__(self, ref: int | None) -> str:
        if ref is None:
            return ""
        r = self.references[ref - 1]
        if ref in self.used:
            return f'<ref name="{r.name}" />'
        self.used.add(ref)
        return f'<ref name="{r.name}">{wiki_source(r)}</ref>'


def wiki_link(link: Link) -> str:
    """`[[Page|text]]` for a wiki page, `[url text]` for a URL."""
    text = wiki_escape(link.text)
    if link.wiki:
        return f"[[{link.href}]]" if link.text == link.href else f"[[{link.href}|{text}]]"
    return f"[{link.href} {text}]"


def wiki_source(r: Reference) -> str:
    """A reference's readable source: document title, heading path, permalink; the offsets last,
    small, and as data attributes."""
    where = [f"''{wiki_escape(r.document_title)}''"]
    if r.section_link is not None:
        where.append(wiki_link(r.section_link))
    elif r.section:
        where.append(wiki_escape(r.section))
    span = (
        f'<small class="ygo-span" data-document="{html.escape(r.document)}" '
        f'data-start="{r.start}" data-end="{r.end}">{wiki_escape(r.document)} '
        f"{r.start}–{r.end}</small>"
    )
    return f"{' › '.join(where)}. {r.permalink} {span}"


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
    meta.append(f"'''Permalink:''' {page.permalink}")
    lines += ["", " · ".join(meta)]
    if page.facts:
        field, value = label("infobox", "field", page.lang), label("infobox", "value", page.lang)
        lines += ["", '{| class="wikitable"', f"! {field} !! {value}"]
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
        head = wiki_link(item.link) + " " if item.link else ""
        label = f"''{wiki_escape(item.label)}:'' " if item.label else ""
        yield f"{prefix} {label}{head}{wiki_escape(item.text)}{cite(item.ref)}".rstrip()
        yield from _wiki_items(item.children, prefix + "*", cite)


# --- markdown ------------------------------------------------------------------------------
_MD_INLINE = re.compile(r"([\\`*_\[\]<>|~&])")
_MD_LEADING = re.compile(r"^(\s*)(?:([#>+=\-])|(\d+)([.)]))")
_MD_WIKILINK_TEXT = re.compile(r"[\[\]|]")


def md_escape(text: str) -> str:
    """Source text as literal CommonMark/GFM: punctuation backslash-escaped, no leading markers."""
    escaped = _MD_INLINE.sub(lambda m: "&amp;" if m.group(1) == "&" else "\\" + m.group(1), text)
    return _MD_LEADING.sub(_md_leading, escaped)


def _md_leading(m: re.Match[str]) -> str:
    if m.group(2):
        return f"{m.group(1)}\\{m.group(2)}"
    return f"{m.group(1)}{m.group(3)}\\{m.group(4)}"


def md_link(link: Link) -> str:
    """`[[Page|text]]` for a wiki page (as Markdown wikis read it), `[text](url)` for a URL."""
    if link.wiki:
        text = " ".join(_MD_WIKILINK_TEXT.sub(" ", link.text).split())
        return f"[[{link.href}]]" if text == link.href else f"[[{link.href}|{text}]]"
    return f"[{md_escape(link.text)}]({link.href})"


def md_source(r: Reference) -> str:
    """A footnote's readable source (as `wiki_source`), the offsets last in `<sub>`."""
    where = [f"*{md_escape(r.document_title)}*"]
    if r.section_link is not None:
        where.append(md_link(r.section_link))
    elif r.section:
        where.append(md_escape(r.section))
    return (
        f"{' › '.join(where)}. <{r.permalink}> <sub>{md_escape(r.document)} {r.start}–{r.end}</sub>"
    )


def to_markdown(page: Page) -> str:
    """A GitHub-flavoured Markdown page with footnote citations named like the wikitext refs."""

    def ref(number: int | None) -> str:
        return f"[^{page.references[number - 1].name}]" if number is not None else ""

    lines = [f"# {md_escape(page.title)}{ref(page.source_ref)}"]
    if page.subtitle:
        lines += ["", f"*{md_escape(page.subtitle)}*"]
    meta = []
    if page.badges:
        meta.append("**Formato:** " + " ".join(f"`{b.label}`" for b in page.badges))
    if page.document:
        meta.append(f"**Documento:** {md_escape(page.document)}")
    meta.append(f"**Permalink:** <{page.permalink}>")
    lines += ["", " · ".join(meta)]
    if page.facts:
        field, value = label("infobox", "field", page.lang), label("infobox", "value", page.lang)
        lines += ["", f"| {field} | {value} |", "| --- | --- |"]
        lines += [f"| {md_escape(k)} | {md_escape(v)} |" for k, v in page.facts]
    for part in page.parts:
        lines += ["", f"{'#' * part.level} {md_escape(part.heading)}"]
        if part.items:
            lines.append("")
            lines += list(_md_items(part.items, part.ordered, "", ref))
    if page.references:
        lines += ["", "## Referências", ""]
        lines += [f"[^{r.name}]: {md_source(r)}" for r in page.references]
    return "\n".join(lines) + "\n"


def _md_items(
    items: tuple[Item, ...], ordered: bool, indent: str, ref: Callable[[int | None], str]
) -> Iterator[str]:
    for i, item in enumerate(items, 1):
        marker = f"{i}." if ordered else "-"
        head = md_link(item.link) + " " if item.link else ""
        label = f"*{md_escape(item.label)}:* " if item.label else ""
        yield f"{indent}{marker} {label}{head}{md_escape(item.text)}{ref(item.ref)}".rstrip()
        yield from _md_items(item.children, False, indent + " " * (len(marker) + 1), ref)


# --- html ----------------------------------------------------------------------------------
# Narrow screens: everything wraps (long ids and IRIs break anywhere), tables scroll in their box.
# The HTML page's one inline style (api.security_headers allows exactly it, by its hash).
PAGE_CSS = (
    "*,*::before,*::after{box-sizing:border-box}"
    "html{-webkit-text-size-adjust:100%;text-size-adjust:100%}"
    "body{font:16px/1.5 system-ui,sans-serif;max-width:60em;margin:0 auto;padding:0 1rem 2rem;"
    "color:#222;background:#fff;overflow-wrap:anywhere}"
    "a{color:#0b57d0}"
    ".top{display:flex;flex-wrap:wrap;gap:.25em 1em;align-items:baseline;"
    "justify-content:space-between;padding:.75em 0;border-bottom:1px solid #ddd}"
    ".home{font-weight:600;text-decoration:none}.formats{font-size:.9em;color:#555}"
    "h1{font-size:1.6em;line-height:1.25}h2,h3,h4,h5{line-height:1.3}"
    "ul,ol{padding-left:1.4em}li{margin:.2em 0}"
    ".badge{background:#234;color:#fff;padding:0 .4em;border-radius:3px;font-size:.85em}"
    ".meta{color:#555}.label{font-style:italic;color:#555}"
    ".iri{font-family:ui-monospace,monospace;font-size:.85em}"
    ".table{max-width:100%;overflow-x:auto}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}"
    "sup a{text-decoration:none}.refs{font-size:.9em}.refs q{color:#444}"
    ".refs .src{display:block}.span{color:#777}"
    "@media (max-width:40em){body{font-size:15px}h1{font-size:1.35em}ul,ol{padding-left:1.1em}}"
    "@media (prefers-color-scheme:dark){body{color:#ddd;background:#141414}a{color:#8ab4f8}"
    ".meta,.label,.formats,.refs q{color:#aaa}.top{border-color:#333}td,th{border-color:#444}}"
)


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _html_link(link: Link) -> str:
    return f'<a href="{_e(link.href)}">{_e(link.text)}</a>'


def to_html(page: Page) -> str:
    """A self-contained HTML5 page (inline CSS, no scripts; where it is served, its server's
    favicon, else an inline one); all text is escaped. It fits a phone: nothing scrolls sideways."""
    icons = (
        [
            f'<link rel="icon" href="{_e(page.icon)}" type="image/svg+xml">',
            f'<link rel="icon" href="{_e(page.home)}favicon.ico" sizes="16x16 32x32">',
        ]
        if page.icon
        else [f'<link rel="icon" href="{_e(favicon_data_uri())}" type="image/svg+xml">']
    )
    out = [
        "<!DOCTYPE html>",
        f'<html lang="{"pt-BR" if page.lang == "pt" else page.lang}">',
        '<head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(page.title)} · ygo-rulings</title>",
        *icons,
        f"<style>{PAGE_CSS}</style></head>",
        "<body>",
        f'<header class="top"><a class="home" href="{_e(page.home)}">← ygo-rulings</a>',
    ]
    if page.alternates:
        links = " · ".join(_html_link(a) for a in page.alternates)
        out.append(f'<nav class="formats" aria-label="Outros formatos">{links}</nav>')
    out += ["</header>", "<main>", f"<h1>{_e(page.title)}{_html_ref(page, page.source_ref)}</h1>"]
    if page.subtitle:
        out.append(f"<p><em>{_e(page.subtitle)}</em></p>")
    meta = [" ".join(f'<span class="badge">{_e(b.label)}</span>' for b in page.badges)]
    if page.document:
        meta.append(f"Documento: {_e(page.document)}")
    meta.append(f'Permalink: <a class="iri" href="{_e(page.permalink)}">{_e(page.permalink)}</a>')
    out.append(f'<p class="meta">{" · ".join(m for m in meta if m)}</p>')
    if page.facts:
        rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in page.facts)
        out.append(f'<div class="table"><table>{rows}</table></div>')
    for part in page.parts:
        out.append(f"<h{part.level}>{_e(part.heading)}</h{part.level}>")
        if part.items:
            out.append(_html_list(page, part.items, part.ordered))
    if page.references:
        out.append('<h2>Referências</h2><ol class="refs">')
        out += [_html_reference(r) for r in page.references]
        out.append("</ol>")
    out += ["</main>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


def _html_reference(r: Reference) -> str:
    """The quoted text, then its readable source, where it opens, its permalink, its offsets."""
    where = [f"<cite>{_e(r.document_title)}</cite>"]
    if r.section_link is not None:
        where.append(_html_link(r.section_link))
    elif r.section:
        where.append(_e(r.section))
    opens = f' · <a href="{_e(r.href)}">abrir no documento</a>' if r.href != r.permalink else ""
    span = (
        f'<small class="span" data-document="{_e(r.document)}" data-start="{r.start}" '
        f'data-end="{r.end}">{_e(r.document)} {r.start}–{r.end}</small>'
    )
    return (
        f'<li id="{r.name}"><q>{_e(r.text)}</q><span class="src">{" › ".join(where)}{opens}'
        f' · <a class="iri" href="{_e(r.permalink)}">{_e(r.permalink)}</a> {span}</span></li>'
    )


def _html_ref(page: Page, ref: int | None) -> str:
    if ref is None:
        return ""
    return f'<sup><a href="#{page.references[ref - 1].name}">[{ref}]</a></sup>'


def _html_list(page: Page, items: tuple[Item, ...], ordered: bool) -> str:
    tag = "ol" if ordered else "ul"
    lis = []
    for item in items:
        label = f'<span class="label">{_e(item.label)}:</span> ' if item.label else ""
        head = _html_link(item.link) + " " if item.link else ""
        nested = _html_list(page, item.children, False) if item.children else ""
        lis.append(f"<li>{label}{head}{_e(item.text)}{_html_ref(page, item.ref)}{nested}</li>")
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
