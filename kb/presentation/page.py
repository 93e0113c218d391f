"""The markup-neutral page model: what a wiki page of a rule, section or card shows.

`kb.presentation.render` builds pages from the graph; `kb.presentation.markup` writes them as wikitext, Markdown or HTML.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Link:
    """A link to another page: a URL, or with `wiki` the name of a page of the wiki the markup is
    pasted into (written `[[href|text]]`)."""

    text: str
    href: str
    wiki: bool = False


@dataclass(frozen=True)
class Reference:
    """A cited node: where it stands (document title, heading path), its permalink, where it
    opens, and its exact span (`text == document[start:end]`). `name` is the same for the node on
    every page (`kb.presentation.links.ref_name`)."""

    id: str
    name: str
    document: str
    document_title: str
    section: str
    section_link: Link | None
    start: int
    end: int
    text: str
    permalink: str
    href: str


@dataclass(frozen=True)
class Item:
    """One list entry: an optional label and link, display text, a reference, nested items."""

    text: str
    ref: int | None = None
    label: str | None = None
    link: Link | None = None
    children: tuple[Item, ...] = ()


@dataclass(frozen=True)
class Part:
    """A headed block of items; `level` 2 is a top-level heading (`== … ==`)."""

    heading: str
    items: tuple[Item, ...] = ()
    ordered: bool = False
    level: int = 2


@dataclass(frozen=True)
class Badge:
    format: str
    label: str


@dataclass(frozen=True)
class Page:
    """Everything a wiki page shows, independent of the markup it is written in.

    `home` is the app (`/` where the page is served, else the public base); `icon` the favicon's
    address where the page is served (None: HTML inlines it); `alternates` the same page in the
    other markups, where it is served."""

    id: str
    kind: str
    title: str
    subtitle: str | None
    badges: tuple[Badge, ...]
    permalink: str
    url: str
    document: str | None
    source_ref: int | None
    facts: tuple[tuple[str, str], ...]
    parts: tuple[Part, ...]
    references: tuple[Reference, ...] = field(default=())
    home: str = "/"
    icon: str | None = None
    alternates: tuple[Link, ...] = ()
    lang: str = "pt"  # of the card data's labels and values (the documents' text stays pt)
