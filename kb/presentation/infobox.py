"""A card page's infobox: the rows of names and card data it shows (wiki pages, any markup)."""

from __future__ import annotations

from kb.model import Node

_CARD_FIELDS: tuple[tuple[str, str], ...] = (
    ("card_type", "Tipo de card"),
    ("property", "Propriedade"),
    ("monster_types", "Tipos de monstro"),
    ("attribute", "Atributo"),
    ("race", "Tipo"),
    ("level", "Nível"),
    ("special_summon", "Invocação-Especial"),
    ("effect_types", "Efeitos"),
    ("negates", "Nega"),
    ("aliases", "Outros nomes"),
)


def card_facts(card: Node) -> tuple[tuple[str, str], ...]:
    """The card's infobox rows: names, then the curated card data that is present."""
    rows = [("Nome (pt)", card.label_pt or "—"), ("Nome (en)", card.label_en or "—")]
    for key, label in _CARD_FIELDS:
        value = card.props.get(key)
        if value in (None, "", []):
            continue
        text = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        rows.append((label, text))
    return tuple(rows)
