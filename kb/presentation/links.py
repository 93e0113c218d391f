"""Where a wiki page's links go, and the names its references carry.

Three link styles, chosen per render:

- `iri`: pages link to the public pages under the base IRI (`<base>rules/<id>`, `<base>cards/<slug>`)
  and references open their permalink (`<base>id/<id>`). The default of wikitext, Markdown, JSON.
- `local`: pages link to the pages this server serves (`/rules/<id>?as=html`, `/cards/<slug>?as=html`)
  and references open the app's document view at the cited span (`/doc/<document>#s=START-END&n=ID`).
  The default of HTML. Permalinks stay the public IRI in every style: they are the node's identity.
- `wiki`: pages are `[[wikilinks]]` to the wiki's own pages, named by a page-name template per kind
  (cards; rules, sections and documents) over the fields of `TEMPLATE_FIELDS`; references open
  their permalink. For wikitext and Markdown (wikis written in Markdown read `[[…]]` too).

Reference names (`ref_name`) come from the cited node's id alone, so the same node gets the same name
on every page and two pages pasted into one article never collide.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from kb.errors import InvalidQuery

LINK_STYLES: tuple[str, ...] = ("iri", "local", "wiki")
# The styles each markup can be written with; the first is its default.
MARKUP_LINKS: dict[str, tuple[str, ...]] = {
    "wikitext": ("iri", "wiki"),
    "markdown": ("iri", "wiki"),
    "html": ("local", "iri"),
    "json": ("iri", "local", "wiki"),
}
TEMPLATE_FIELDS: dict[str, str] = {
    "id": "the node id (card/jinzo, doc/rule-05)",
    "slug": "the id without card/ (jinzo, doc/rule-05)",
    "name_pt": "the pt-BR name (else the English one)",
    "name_en": "the English name (else the pt-BR one)",
    "title": "the page title (Regra 5 — …; a card's pt-BR name)",
    "number": "a rule's number (empty for other pages)",
    "document": "the document id of a rule or section (empty for cards)",
    "document_title": "the document's pt-BR title (empty for cards)",
    "password": "a card's password (empty for other pages)",
}
DEFAULT_CARD_TEMPLATE = "{name_pt}"
DEFAULT_RULE_TEMPLATE = "{document_title}/{title}"
# Characters MediaWiki forbids in page titles; dropped from field values, refused in templates.
_TITLE_ILLEGAL = re.compile(r"[#<>\[\]{}|]")
_SLUG = re.compile(r"[^a-z0-9]+")


def ref_name(node_id: str) -> str:
    """A reference name unique to the node and the same on every page: its id as a slug plus a
    short hash of the exact id (so ids that slug alike still differ), e.g.
    `ygo-edison-rule-05-p-01-1a2b3c`. Letters, digits and hyphens only: valid as a MediaWiki
    `<ref name>`, a GFM footnote label and an HTML id."""
    slug = _SLUG.sub("-", node_id.lower()).strip("-")
    digest = hashlib.blake2b(node_id.encode("utf-8"), digest_size=3).hexdigest()
    return f"ygo-{slug}-{digest}" if slug else f"ygo-{digest}"


def check_template(param: str, template: str) -> str:
    """The template if it is a valid page-name template, else InvalidQuery naming `param`.

    Fields are `{name}` with a name of TEMPLATE_FIELDS; no conversions, format specs, positional
    or nested fields; `{{`/`}}` and characters MediaWiki forbids in titles are refused too.
    """
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise InvalidQuery(param, f"bad braces in {template!r} ({exc})") from None
    fields = []
    for literal, field, spec, conversion in parsed:
        if _TITLE_ILLEGAL.search(literal):
            bad = _TITLE_ILLEGAL.search(literal)
            assert bad is not None
            raise InvalidQuery(
                param,
                f"{template!r} has {bad.group(0)!r} outside a field; "
                "a wiki page name cannot contain # < > [ ] | { }",
            )
        if field is None:
            continue
        if field not in TEMPLATE_FIELDS:
            what = f"unknown field {field!r}" if field else "a field without a name"
            raise InvalidQuery(
                param,
                f"{what} in {template!r}; use one of "
                + ", ".join("{" + f + "}" for f in TEMPLATE_FIELDS),
            )
        if spec or conversion:
            raise InvalidQuery(
                param, f"field {field!r} in {template!r} takes no conversion or format spec"
            )
        fields.append(field)
    if not fields:
        raise InvalidQuery(param, f"{template!r} names no field, so every page would be the same")
    return template


def page_name(template: str, fields: Mapping[str, str]) -> str:
    """A wiki page name from a checked template: field values without the characters MediaWiki
    forbids in titles, whitespace collapsed; the node id when nothing is left."""
    values = {k: " ".join(_TITLE_ILLEGAL.sub("", v).split()) for k, v in fields.items()}
    name = " ".join(template.format_map(values).split()).strip("/ ")
    return name or fields["id"]


@dataclass(frozen=True)
class LinkStyle:
    """How one render writes its links (see the module docstring)."""

    style: str
    base: str
    card_template: str = DEFAULT_CARD_TEMPLATE
    rule_template: str = DEFAULT_RULE_TEMPLATE

    @property
    def wiki(self) -> bool:
        return self.style == "wiki"

    @property
    def local(self) -> bool:
        return self.style == "local"

    def home(self) -> str:
        """The app: served here, or at the public base."""
        return "/" if self.local else self.base

    def page_href(self, node_id: str, card: bool) -> str:
        """A page's address in the iri and local styles."""
        root = "/" if self.local else self.base
        path = (
            "cards/" + quote(node_id.removeprefix("card/"), safe="/")
            if card
            else "rules/" + quote(node_id, safe="/")
        )
        return root + path + ("?as=html" if self.local else "")

    def wiki_page(self, card: bool, fields: Mapping[str, str]) -> str:
        return page_name(self.card_template if card else self.rule_template, fields)

    def open_href(self, node_id: str, document: str, start: int, end: int, permalink: str) -> str:
        """Where a reference opens: the app's document view at the span (local), else its permalink."""
        if self.local:
            return f"/doc/{quote(document, safe='')}#s={start}-{end}&n={quote(node_id, safe='')}"
        return permalink


def link_style(
    markup: str,
    base: str,
    links: str | None = None,
    template: str | None = None,
    rule_template: str | None = None,
) -> LinkStyle:
    """The link style of one render, its parameters checked (InvalidQuery names the bad one)."""
    base = base if base.endswith("/") else base + "/"
    allowed = MARKUP_LINKS.get(markup, LINK_STYLES)
    style = links or allowed[0]
    if style not in LINK_STYLES:
        raise InvalidQuery(
            "links", f"unknown link style {style!r}; use one of {', '.join(LINK_STYLES)}"
        )
    if style not in allowed:
        raise InvalidQuery(
            "links", f"{markup} is written with links={' or links='.join(allowed)}, not {style!r}"
        )
    if style != "wiki":
        for param, value in (("template", template), ("rule_template", rule_template)):
            if value is not None:
                raise InvalidQuery(param, "a page-name template applies only with links=wiki")
        return LinkStyle(style, base)
    return LinkStyle(
        style,
        base,
        check_template("template", template) if template is not None else DEFAULT_CARD_TEMPLATE,
        check_template("rule_template", rule_template)
        if rule_template is not None
        else DEFAULT_RULE_TEMPLATE,
    )
