"""The imported table checked against the curated table `corpus/cards.yaml` (curated wins).

Two kinds of differences:

* conflicts of card data (English/Portuguese name, card type, property, Attribute, Level), which
  the importer reports so the curated table or the data can be corrected;
* disagreements of inferred mechanics: the scored ones (Special Summon kind; negation
  capabilities, each curated `negates` value mapped through `ingest.curated.CAPABILITY` to
  summon-, activation- or effect-negation) and, for information, effect types, LP costs and
  ATK/DEF modification.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest.curated import CAPABILITY, load_cards
from kb.cards.table import CardRecord
from kb.model import Node

SCORED = ("special_summon", "negation")
INFORMATIONAL = ("effect_types", "lp_cost", "modifies_atk_def")


@dataclass(frozen=True)
class Difference:
    """One field of one card where the curated table and the card data differ."""

    card: str
    field: str
    curated: str
    imported: str


@dataclass(frozen=True)
class Agreement:
    """Per scored field: cards compared, cards agreeing; every difference."""

    compared: int
    agree: dict[str, int]
    disagreements: tuple[Difference, ...]
    informational: tuple[Difference, ...] = ()
    missing: tuple[str, ...] = ()

    def rate(self, name: str) -> float:
        return self.agree.get(name, 0) / self.compared if self.compared else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "compared": self.compared,
            "agreement": {k: round(self.rate(k), 4) for k in SCORED},
            "disagreements": len(self.disagreements),
            "missing": list(self.missing),
        }


@dataclass(frozen=True)
class Curated:
    """The curated cards by slug (their nodes as `ingest.curated` loads them)."""

    nodes: dict[str, Node] = field(default_factory=dict)

    @property
    def names(self) -> dict[str, str]:
        return {slug: n.label_en or "" for slug, n in self.nodes.items()}


def load_curated(corpus_dir: Path) -> Curated:
    """The curated cards of a corpus (none when it has no cards.yaml)."""
    path = corpus_dir / "cards.yaml"
    if not path.is_file():
        return Curated()
    return Curated({n.id.removeprefix("card/"): n for n in load_cards(path).nodes})


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, list | tuple | set | frozenset) and not value):
        return "—"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(str(v) for v in sorted(value, key=str))
    return str(value)


def conflicts(records: Iterable[CardRecord], curated: Curated) -> list[Difference]:
    """Card-data differences (names, type, property, Attribute, Level) on the curated cards."""
    by_slug = {r.slug: r for r in records}
    out: list[Difference] = []
    for slug, node in sorted(curated.nodes.items()):
        r = by_slug.get(slug)
        if r is None:
            continue
        p = node.props
        level = r.rank if "xyz" in r.monster_classes else r.level
        pairs: list[tuple[str, Any, Any]] = [
            ("name_en", node.label_en, r.name_en),
            ("name_pt", node.label_pt, r.name_pt),
            ("card_type", p.get("card_type"), r.card_type),
            ("property", p.get("property"), r.property),
        ]
        if r.card_type == "monster":
            pairs.append(("attribute", p.get("attribute"), r.attribute))
            if "link" not in r.monster_classes:
                pairs.append(("level", p.get("level"), level))
        for name, mine, theirs in pairs:
            if mine != theirs and not (mine is None and name == "property"):
                out.append(Difference(slug, name, _fmt(mine), _fmt(theirs)))
    return out


def capabilities(negates: Iterable[str]) -> frozenset[str]:
    return frozenset(CAPABILITY[v] for v in negates if v in CAPABILITY)


def compare(records: Iterable[CardRecord], curated: Curated) -> Agreement:
    """The agreement of the inferred mechanics with the curated ones."""
    by_slug = {r.slug: r for r in records}
    agree = dict.fromkeys(SCORED, 0)
    scored: list[Difference] = []
    info: list[Difference] = []
    missing: list[str] = []
    compared = 0
    for slug, node in sorted(curated.nodes.items()):
        r = by_slug.get(slug)
        if r is None:
            missing.append(slug)
            continue
        compared += 1
        p = node.props
        summon = p.get("special_summon")
        if summon == r.special_summon:
            agree["special_summon"] += 1
        else:
            scored.append(Difference(slug, "special_summon", _fmt(summon), _fmt(r.special_summon)))
        mine, theirs = capabilities(p.get("negates") or ()), capabilities(r.negates)
        if mine == theirs:
            agree["negation"] += 1
        else:
            scored.append(Difference(slug, "negation", _fmt(mine), _fmt(theirs)))
        info.extend(_informational(slug, p, r))
    return Agreement(compared, agree, tuple(scored), tuple(info), tuple(missing))


def _informational(slug: str, p: Mapping[str, Any], r: CardRecord) -> list[Difference]:
    out: list[Difference] = []
    mine = set(p.get("effect_types") or ())
    if mine != set(r.effect_types):
        out.append(Difference(slug, "effect_types", _fmt(mine), _fmt(set(r.effect_types))))
    cost = p.get("lp_cost")
    cur = f"{cost['amount']} {cost['kind']}" if cost else None
    inf = f"{r.lp_cost_amount} {r.lp_cost_kind}" if r.lp_cost_amount is not None else None
    if cur != inf:
        out.append(Difference(slug, "lp_cost", _fmt(cur), _fmt(inf)))
    traits = "modifies-atk-def" in (p.get("traits") or ())
    if traits != r.modifies_atk_def:
        out.append(
            Difference(
                slug, "modifies_atk_def", str(traits).lower(), str(r.modifies_atk_def).lower()
            )
        )
    return out


def report_markdown(agreement: Agreement, found: list[Difference], meta: Mapping[str, str]) -> str:
    """The agreement report: summary, every scored disagreement, the informational ones."""
    lines = [
        "# Inferred card mechanics against the curated table",
        "",
        "Generated by the card importer; do not edit by hand. The curated table "
        "(`corpus/cards.yaml`) is the authority where they differ.",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in meta.items()]
    lines += [
        "",
        "## Agreement",
        "",
        "| field | agree | compared | rate |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name in SCORED:
        lines.append(
            f"| {name} | {agreement.agree[name]} | {agreement.compared} | {agreement.rate(name):.1%} |"
        )
    lines += ["", f"Curated cards not in the card data: {_fmt(list(agreement.missing))}", ""]
    lines += _table("Disagreements (scored)", agreement.disagreements, "inferred")
    lines += _table(
        "Card data conflicts (names, type, property, Attribute, Level)", found, "card data"
    )
    lines += _table(
        "Other differences (informational: effect types, LP costs, ATK/DEF)",
        agreement.informational,
        "inferred",
    )
    return "\n".join(lines).rstrip() + "\n"


def _table(title: str, rows: Iterable[Difference], theirs: str) -> list[str]:
    rows = list(rows)
    out = [f"## {title}", "", f"{len(rows)} differences.", ""]
    if rows:
        out += [f"| card | field | curated | {theirs} |", "| --- | --- | --- | --- |"]
        out += [f"| card/{d.card} | {d.field} | {d.curated} | {d.imported} |" for d in rows]
    out.append("")
    return out
