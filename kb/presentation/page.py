"""The markup-neutral page model: what a wiki page of a rule, section or card shows.

`kb.presentation.render` builds pages from the graph; `kb.presentation.markup` writes them as wikitext, Markdown or HTML.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reference:
    """A cited node: its permalink and its exact span (`text == document[start:end]`)."""

    id: str
    document: str
    start: int
    end: int
    text: str
    permalink: str


@dataclass(frozen=True)
class Link:
    text: str
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
    """Everything a wiki page shows, independent of the markup it is written in."""

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
