"""The three formats the corpus scopes its rules to, with the words that name them."""

from __future__ import annotations

from kb.ids import format_id
from kb.link import Entry
from kb.model import Node

FORMAT_LABELS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "edison": (
        "Formato Edison",
        "Edison Format",
        ("Edison", "Formato Edison", "Edison Format", "SJC Edison", "formato de 2010"),
    ),
    "tag": (
        "Tag Duel",
        "Tag Duel",
        (
            "Tag Duel",
            "Tag Dueling",
            "Tag Duels",
            "Duelo em Dupla",
            "Duelos em Dupla",
            "2 vs 2",
            "2v2",
            "dupla",
        ),
    ),
    "general": (
        "Regras gerais (atuais)",
        "General (modern) rules",
        (
            "formato atual",
            "Yu-Gi-Oh! contemporâneo",
            "modern rules",
            "regras atuais",
            "formato moderno",
            "Master Rules",
        ),
    ),
}


def format_nodes() -> list[Node]:
    """One Format node per format."""
    return [
        Node(id=format_id(name), type="Format", label_pt=pt, label_en=en, props={"name": name})
        for name, (pt, en, _aliases) in FORMAT_LABELS.items()
    ]


def format_entries() -> list[Entry]:
    """Linker entries for the formats."""
    return [
        Entry(format_id(name), "Format", en, (pt, en, *aliases))
        for name, (pt, en, aliases) in FORMAT_LABELS.items()
    ]
