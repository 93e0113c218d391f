"""Wiki pages from the graph: a Rule, Section, Document or Card as a markup-neutral `Page`.

A page (`kb.presentation.page`) is plain data: title, format badges, parts of items, related cards, references
with permalinks and exact spans; `kb.presentation.markup` writes it as MediaWiki wikitext, Markdown or HTML.
Every item that quotes the corpus points at a `Reference` whose `text == document[start:end]`.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from kb.errors import InvalidQuery
from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.model import Node
from kb.presentation.class_rules import class_rules
from kb.presentation.infobox import card_facts
from kb.presentation.links import LinkStyle, ref_name
from kb.presentation.list_cards import list_items
from kb.presentation.page import Badge, Item, Link, Page, Part, Reference

RENDERABLE_TYPES: tuple[str, ...] = ("Rule", "Section", "Document", "Card")
_BULLET = re.compile(r"^[•●\-–]\s*")
_SKIP_KINDS = frozenset({"entry", "title", "toc"})
_PERMISSION = {"allowed": "permitido", "forbidden": "proibido"}
_PREDICATE_LABEL = {
    "summoned_by": "Invocação",
    "has_capability": "Capacidade",
    "has_spell_speed": "Velocidade de Magia",
}
_AUTHORITY_ORDER = ["document", "curated", "inferred"]
_KIND_LABEL = {"Example": "Exemplo", "Step": "Passo", "Rule": "Regra", "Section": "Seção"}


class _References:
    """Collects cited nodes in first-use order; each node gets one 1-based number."""

    def __init__(self, builder: PageBuilder) -> None:
        self.builder = builder
        self.numbers: dict[str, int] = {}
        self.items: list[Reference] = []

    def cite(self, node: Node) -> int | None:
        if node.span is None or node.type == "Document":
            return None
        if node.id not in self.numbers:
            self.items.append(self.builder.reference(node))
            self.numbers[node.id] = len(self.items)
        return self.numbers[node.id]


class PageBuilder:
    """Builds pages over one graph; permalinks are under `base_iri`, other links as `links` says
    (default: the public pages under `base_iri`)."""

    def __init__(
        self,
        kg: KnowledgeGraph,
        documents: dict[str, str],
        doc_formats: dict[str, str],
        base_iri: str,
        links: LinkStyle | None = None,
        lang: str = "pt",
    ) -> None:
        self.kg = kg
        self.lang = lang
        self.documents = documents
        self.doc_formats = doc_formats
        self.formats = Formats.of_nodes(kg.of_type("Format"))
        self.base = base_iri if base_iri.endswith("/") else base_iri + "/"
        self.links = links or LinkStyle("iri", self.base)

    # --- links -----------------------------------------------------------------------------
    def permalink(self, node_id: str) -> str:
        return self.base + "id/" + quote(node_id, safe="/")

    def page_url(self, node: Node) -> str:
        """The page's public address (whatever the link style)."""
        return LinkStyle("iri", self.base).page_href(node.id, node.type == "Card")

    def link_to(self, node: Node, text: str) -> Link:
        """A link to the page of a card, rule, section or document, in the page's link style."""
        card = node.type == "Card"
        if self.links.wiki:
            return Link(text, self.links.wiki_page(card, self.template_fields(node)), wiki=True)
        return Link(text, self.links.page_href(node.id, card))

    def template_fields(self, node: Node) -> dict[str, str]:
        """The values a page-name template can use (`kb.presentation.links.TEMPLATE_FIELDS`)."""
        pt = node.label_pt or node.label_en or node.id
        doc = self.kg.get(node.span.document) if node.span else None
        number = node.props.get("number") if node.type == "Rule" else None
        password = node.props.get("password") if node.type == "Card" else None
        return {
            "id": node.id,
            "slug": node.id.removeprefix("card/"),
            "name_pt": pt,
            "name_en": node.label_en or pt,
            "title": self.title(node) if node.type != "Card" else pt,
            "number": "" if number is None else str(number),
            "document": doc.id if doc else "",
            "document_title": (doc.label_pt or doc.id) if doc else "",
            "password": "" if password is None else str(password),
        }

    def reference(self, node: Node) -> Reference:
        """A cited node as the same Reference on every page: its document's title, the heading
        path above it (linked to the nearest rule or section page), its permalink and span."""
        assert node.span is not None
        span = node.span
        doc = self.kg.get(span.document)
        holder = node if node.type in ("Rule", "Section") else self.kg.section_of(node.id)
        holder = holder if holder is not None and holder.type != "Document" else None
        section = self.breadcrumb(node)
        permalink = self.permalink(node.id)
        return Reference(
            id=node.id,
            name=ref_name(node.id),
            document=span.document,
            document_title=(doc.label_pt if doc else None) or span.document,
            section=section,
            section_link=self.link_to(holder, section) if holder is not None and section else None,
            start=span.start,
            end=span.end,
            text=self.documents[span.document][span.start : span.end],
            permalink=permalink,
            href=self.links.open_href(node.id, span.document, span.start, span.end, permalink),
        )

    def served(self, node: Node) -> tuple[str, str | None, tuple[Link, ...]]:
        """The page's way back to the app, its icon and its other markups (where it is served)."""
        if not self.links.local:
            return self.links.home(), None, ()
        here = self.links.page_href(node.id, node.type == "Card").removesuffix("?as=html")
        alternates = tuple(
            Link(label, f"{here}?as={markup}")
            for markup, label in (
                ("wikitext", "wikitext"),
                ("markdown", "Markdown"),
                ("json", "JSON"),
            )
        )
        return "/", "/favicon.svg", alternates

    # --- pages -----------------------------------------------------------------------------
    def page(self, node: Node) -> Page:
        """The page of a Rule, Section, Document or Card (InvalidQuery for other node types)."""
        if node.type == "Card":
            return self._card_page(node)
        if node.type not in RENDERABLE_TYPES:
            section = self.kg.section_of(node.id)
            hint = f"; its section is {section.id}" if section else ""
            raise InvalidQuery(
                "node_id", f"{node.id} is a {node.type}; render a Rule, Section or Card{hint}"
            )
        return self._text_page(node)

    def _text_page(self, node: Node) -> Page:
        refs = _References(self)
        source_ref = refs.cite(node)
        parts = self.section_parts(node, refs, level=2)
        cards = self.related_cards(node)
        if cards:
            parts.append(Part("Cards relacionados", tuple(cards)))
        doc = self.kg.get(node.span.document) if node.span else None
        home, icon, alternates = self.served(node)
        return Page(
            id=node.id,
            kind=node.type.lower(),
            title=self.title(node),
            subtitle=node.label_en,
            badges=(self.badge(node),),
            permalink=self.permalink(node.id),
            url=self.page_url(node),
            document=doc.label_pt if doc else None,
            source_ref=source_ref,
            facts=(),
            parts=tuple(parts),
            references=tuple(refs.items),
            home=home,
            icon=icon,
            alternates=alternates,
            lang=self.lang,
        )

    def _card_page(self, card: Node) -> Page:
        refs = _References(self)
        by_doc: dict[str, dict[str, list[Node]]] = {}
        for mention in self.mentioning(card.id):
            section = (
                self.kg.section_of(mention.id)
                if mention.type not in ("Rule", "Section")
                else mention
            )
            doc = mention.span.document if mention.span else "?"
            key = section.id if section else doc
            by_doc.setdefault(doc, {}).setdefault(key, []).append(mention)
        parts = [self._facts_part(card, refs)]
        for doc_id in sorted(by_doc, key=self._doc_order):
            doc_node = self.kg.get(doc_id)
            heading = doc_node.label_pt if doc_node and doc_node.label_pt else doc_id
            items = [self._section_group(key, nodes, refs) for key, nodes in by_doc[doc_id].items()]
            parts.append(Part(f"{heading} ({self._doc_badge(doc_id).label})", tuple(items)))
        named = {n.id for n in self.mentioning(card.id)}
        parts.append(self._class_part(card, refs, named))
        badges = tuple(
            dict.fromkeys(self._doc_badge(d) for d in sorted(by_doc, key=self._doc_order))
        )
        home, icon, alternates = self.served(card)
        return Page(
            id=card.id,
            kind="card",
            title=card.label_pt or card.label_en or card.id,
            subtitle=card.label_en if card.label_en != card.label_pt else None,
            badges=badges,
            permalink=self.permalink(card.id),
            url=self.page_url(card),
            document=None,
            source_ref=None,
            facts=card_facts(card, self.formats.specs, self.lang),
            parts=tuple(p for p in parts if p.items),
            references=tuple(refs.items),
            home=home,
            icon=icon,
            alternates=alternates,
            lang=self.lang,
        )

    def mentioning(self, entity: str) -> list[Node]:
        """Text nodes that mention an entity, in document order (list entries count as their list)."""
        found: dict[str, Node] = {}
        for f in self.kg.into(entity, "mentions"):
            node = self.kg.get(f.subject)
            if node is None or node.span is None or node.type == "Document":
                continue
            if node.props.get("kind") == "entry" and node.parent:
                node = self.kg.node(node.parent)
            found[node.id] = node
        return sorted(
            found.values(),
            key=lambda n: (
                self._doc_order(n.span.document if n.span else ""),
                n.span.start if n.span else 0,
            ),
        )

    def _doc_order(self, doc_id: str) -> int:
        order = list(self.doc_formats)
        return order.index(doc_id) if doc_id in order else len(order)

    def _doc_badge(self, doc_id: str) -> Badge:
        return self.format_badge(self.doc_formats.get(doc_id))

    def _section_group(self, key: str, nodes: list[Node], refs: _References) -> Item:
        section = self.kg.get(key)
        if section is None or section.type == "Document":
            return Item(
                text="", children=tuple(self.item(n, refs, self.kind_label(n)) for n in nodes)
            )
        children = tuple(
            self.item(n, refs, self.kind_label(n)) for n in nodes if n.id != section.id
        )
        return Item(
            text=f"({section.id})",
            ref=refs.cite(section) if not children else None,
            link=self.link_to(section, self.breadcrumb(section)),
            children=children,
        )

    def _facts_part(self, card: Node, refs: _References) -> Part:
        """What the graph states about the card: summon kind, capabilities, spell speed."""
        merged: dict[tuple[str, str, str], tuple[list[str], Node | None]] = {}
        for predicate in ("summoned_by", "has_capability", "has_spell_speed"):
            for f in self.kg.out(card.id, predicate):
                key = (predicate, f.object, str(f.props.get("scope", "")))
                authorities, source = merged.setdefault(key, ([], None))
                if f.authority not in authorities:
                    authorities.append(f.authority)
                node = self.kg.get(f.source) if f.source else None
                if node is not None and node.props.get("kind") == "entry" and node.parent:
                    node = self.kg.node(node.parent)
                merged[key] = (authorities, source or node)
        items = []
        for (predicate, obj, scope), (authorities, source) in merged.items():
            target = self.kg.get(obj)
            name = (target.label_pt or target.label_en or obj) if target else obj
            text = f"{name} ({scope})" if scope else name
            items.append(
                Item(
                    text=f"{text}; fonte: {', '.join(sorted(authorities, key=_AUTHORITY_ORDER.index))}",
                    ref=refs.cite(source) if source else None,
                    label=_PREDICATE_LABEL[predicate],
                )
            )
        return Part("Fatos", tuple(items))

    def _class_part(self, card: Node, refs: _References, named: set[str]) -> Part:
        """The rules that apply to the card through its classes (Union monster, Spell Speed 2,
        non-inherent Special Summon, the Damage Step class), beside those that name it."""
        items = []
        for found in class_rules(self.kg, card.id):
            children = tuple(self.item(n, refs) for n in found.passages if n.id not in named)
            if children:
                concept = found.concept
                items.append(
                    Item(
                        text=concept.label_pt or concept.label_en or concept.id,
                        label="Classe",
                        children=children,
                    )
                )
        return Part("Regras da sua classe", tuple(items))

    def title(self, node: Node) -> str:
        name = node.label_pt or node.text or node.id
        number = node.props.get("number")
        if node.type == "Rule" and number is not None:
            return f"Regra #{number} — {name}"
        return name

    def breadcrumb(self, node: Node) -> str:
        """The titles of the sections above a node and its own: "Inerentes › Regras"."""
        chain = [self.kg.node(a) for a in reversed(self.kg.ancestors(node.id))]
        return " › ".join(self.title(n) for n in [*chain, node] if n.type in ("Rule", "Section"))

    def badge(self, node: Node) -> Badge:
        """The format a node applies in: its own or an ancestor's `applies_in`, else its document's."""
        for nid in (node.id, *self.kg.ancestors(node.id)):
            for f in self.kg.out(nid, "applies_in"):
                return self.format_badge(f.object.removeprefix("format/"))
        return self.format_badge(self.doc_formats.get(node.span.document) if node.span else None)

    def format_badge(self, format_name: str | None) -> Badge:
        """A format's badge as the manifest names it; no format means the base (general) rules."""
        name = format_name or self.formats.base or ""
        return Badge(name, self.formats.badge(name, "pt"))

    # --- structure -------------------------------------------------------------------------
    def ordered_children(self, node_id: str) -> list[Node]:
        return sorted((self.kg.node(c) for c in self.kg.children(node_id)), key=_doc_position)

    def section_parts(self, node: Node, refs: _References, level: int) -> list[Part]:
        """Text, steps and examples of a section, then each sub-section under its own heading."""
        groups: dict[str, list[Node]] = {"Texto": [], "Passos": [], "Exemplos": []}
        subsections: list[Node] = []
        for child in self.ordered_children(node.id):
            if child.type == "Passage" and child.props.get("kind") not in _SKIP_KINDS:
                groups["Texto"].append(child)
            elif child.type == "Step":
                groups["Passos"].append(child)
            elif child.type == "Example":
                groups["Exemplos"].append(child)
            elif child.type in ("Section", "Rule"):
                subsections.append(child)
        seen = {e.id for e in groups["Exemplos"]}
        for f in self.kg.into(node.id, "example_of"):
            other = self.kg.get(f.subject)
            if other is not None and other.id not in seen and other.span is not None:
                groups["Exemplos"].append(other)
                seen.add(other.id)
        depth = min(level, 5)
        parts: list[Part] = []
        for heading, nodes in sorted(
            ((h, sorted(ns, key=_doc_position)) for h, ns in groups.items() if ns),
            key=lambda hn: _doc_position(hn[1][0]),
        ):
            items = tuple(self.item(n, refs) for n in nodes)
            parts.append(Part(heading, items, ordered=heading == "Passos", level=depth))
        listed = list_items(self.kg, node, self.badge(node).format, self.link_to, self.lang)
        if listed is not None:
            parts.append(Part(listed[0], listed[1], level=depth))
        for sub in subsections:
            parts.append(Part(self.title(sub), (), level=depth))
            parts.extend(self.section_parts(sub, refs, level + 1))
        return parts

    def item(self, node: Node, refs: _References, label: str | None = None) -> Item:
        """A text node as a list item citing itself, with its nested passages as children."""
        ref = refs.cite(node)
        children = tuple(
            self.item(c, refs)
            for c in self.ordered_children(node.id)
            if c.type in ("Passage", "Example") and c.props.get("kind") not in _SKIP_KINDS
        )
        permission = _PERMISSION.get(node.props.get("permission", ""))
        return Item(
            text=display_text(node.text or node.label_pt or node.id),
            ref=ref,
            label=label or permission,
            children=children,
        )

    def related_cards(self, node: Node) -> list[Item]:
        """Cards mentioned by the node or anything below it, in order of first mention."""
        found: dict[str, int] = {}
        stack = [node.id]
        while stack:
            nid = stack.pop()
            here = self.kg.node(nid)
            for f in self.kg.out(nid, "mentions"):
                if f.object.startswith("card/"):
                    pos = int(f.props.get("start", here.span.start if here.span else 0))
                    found[f.object] = min(found.get(f.object, pos), pos)
            stack.extend(self.kg.children(nid))
        return [self.card_item(self.kg.node(c)) for c in sorted(found, key=lambda c: found[c])]

    def card_item(self, card: Node) -> Item:
        pt = card.label_pt or card.label_en or card.id
        en = card.label_en or ""
        return Item(text=f"(en: {en})" if en else "", link=self.link_to(card, pt))

    def kind_label(self, node: Node) -> str:
        return _KIND_LABEL.get(node.type, "Texto")


def _doc_position(node: Node) -> tuple[int, str]:
    return (node.span.start if node.span else 1 << 60, node.id)


def display_text(text: str) -> str:
    """Source text for display: one line, without a leading bullet glyph."""
    return _BULLET.sub("", " ".join(text.split()))
