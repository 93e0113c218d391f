"""Loading and validating the hand-written curated tables: cards.yaml and glossary.yaml.

Every malformed entry is an IngestError naming the file and the entry's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from kb.errors import IngestError
from kb.ids import card_id, concept_id, slugify
from kb.link import Entry
from kb.model import Fact, Node

CARD_TYPES = {"monster", "spell", "trap"}
PROPERTIES = {"normal", "quick-play", "continuous", "field", "equip", "ritual", "counter"}
MONSTER_TYPES = {
    "normal",
    "effect",
    "fusion",
    "ritual",
    "synchro",
    "xyz",
    "link",
    "pendulum",
    "tuner",
    "flip",
    "union",
    "spirit",
    "toon",
    "gemini",
    "trap-monster",
}
NEGATES = {
    "summon",
    "special-summon",
    "spell-activation",
    "trap-activation",
    "monster-effect-activation",
    "effects",
    "spell-effects",
    "trap-effects",
    "monster-effects",
}
EFFECT_TYPES = {"ignition", "trigger", "quick", "continuous", "flip"}
# Traits a rule singles out (Edison rule 8: "cards that modify ATK/DEF"), as the class concept.
TRAITS: dict[str, str] = {"modifies-atk-def": "atk-def-modifier"}
SUMMON_KINDS = {"inherent", "non-inherent"}

# What a curated `negates` value means as a capability concept.
CAPABILITY: dict[str, str] = {
    "summon": "summon-negation",
    "special-summon": "summon-negation",
    "spell-activation": "activation-negation",
    "trap-activation": "activation-negation",
    "monster-effect-activation": "activation-negation",
    "effects": "effect-negation",
    "spell-effects": "effect-negation",
    "trap-effects": "effect-negation",
    "monster-effects": "effect-negation",
}


@dataclass(frozen=True)
class Curated:
    """Curated nodes, facts and linker entries."""

    nodes: tuple[Node, ...]
    facts: tuple[Fact, ...]
    entries: tuple[Entry, ...]


# libyaml's safe loader when available (same data, ~10x faster on the curated tables).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _items(path: Path, text: str, key: str) -> list[tuple[int, dict[str, Any]]]:
    """The entries of the top-level list `key`, each with its 1-based line number."""
    try:
        data = yaml.load(text, Loader=_LOADER)
        root = yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise IngestError(str(path), f"invalid YAML: {getattr(exc, 'problem', exc)}", line) from exc
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        raise IngestError(str(path), f"expected a mapping with a list under {key!r}")
    seq = next(v for k, v in root.value if k.value == key)  # type: ignore[union-attr]
    lines = [item.start_mark.line + 1 for item in seq.value]
    out = []
    for line, item in zip(lines, data[key], strict=True):
        if not isinstance(item, dict):
            raise IngestError(str(path), "each entry must be a mapping", line)
        out.append((line, item))
    return out


def _need(path: Path, line: int, item: dict[str, Any], field: str) -> Any:
    value = item.get(field)
    if value in (None, "", []):
        raise IngestError(str(path), f"entry {item.get('id', '?')!r} lacks {field!r}", line)
    return value


def _check(path: Path, line: int, item: dict[str, Any], field: str, allowed: set[str]) -> list[str]:
    raw = item.get(field) or []
    values = [raw] if isinstance(raw, str) else list(raw)
    bad = [v for v in values if v not in allowed]
    if bad:
        raise IngestError(
            str(path),
            f"entry {item.get('id')!r}: unknown {field} {bad} (allowed: {sorted(allowed)})",
            line,
        )
    return values


# A leading article players drop: "The White Stone of Legend" is also "White Stone of Legend".
_ARTICLE = re.compile(r"^(?:The|A|O|As|Os)\s+")


def load_cards(path: Path) -> Curated:
    """Card nodes, their curated facts (classes, summon kind, capabilities) and linker entries."""
    text = _read(path)
    nodes: list[Node] = []
    facts: list[Fact] = []
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for line, item in _items(path, text, "cards"):
        slug = str(_need(path, line, item, "id"))
        en = str(_need(path, line, item, "en"))
        if slug in seen:
            raise IngestError(
                str(path), f"duplicate card id {slug!r} (first at line {seen[slug]})", line
            )
        seen[slug] = line
        if slugify(en) != slug:
            raise IngestError(str(path), f"card id {slug!r} is not the slug of {en!r}", line)
        kind = str(_need(path, line, item, "card_type"))
        _check(path, line, item, "card_type", CARD_TYPES)
        prop = item.get("property")
        if kind != "monster":
            _need(path, line, item, "property")
            _check(path, line, item, "property", PROPERTIES)
        mtypes = _check(path, line, item, "monster_types", MONSTER_TYPES)
        if kind == "monster" and not mtypes:
            raise IngestError(str(path), f"monster {slug!r} lacks 'monster_types'", line)
        negates = _check(path, line, item, "negates", NEGATES)
        effects = _check(path, line, item, "effect_types", EFFECT_TYPES)
        traits = _check(path, line, item, "traits", set(TRAITS))
        lp_cost = _lp_cost(path, line, item)
        summon = _check(path, line, item, "special_summon", SUMMON_KINDS)
        aliases = [str(a) for a in item.get("aliases") or []]
        # Players drop a leading article: "The White Stone of Legend" → "White Stone of Legend".
        for name in (en, item.get("pt")):
            bare = _ARTICLE.sub("", str(name or ""))
            if name and bare != name and len(bare) >= 8 and bare not in aliases:
                aliases.append(bare)
        pt = item.get("pt")
        cid = card_id(slug)
        props: dict[str, Any] = {
            "card_type": kind,
            "property": prop,
            "monster_types": mtypes,
            "aliases": aliases,
            "line": line,
        }
        for key in ("attribute", "race", "level"):
            if item.get(key) is not None:
                props[key] = item[key]
        if negates:
            props["negates"] = negates
        if traits:
            props["traits"] = traits
        if lp_cost is not None:
            props["lp_cost"] = lp_cost
        if effects:
            props["effect_types"] = effects
        if summon:
            props["special_summon"] = summon[0]
        nodes.append(Node(id=cid, type="Card", label_pt=pt, label_en=en, props=props))
        entries.append(Entry(cid, "Card", en, tuple(s for s in (en, pt, *aliases) if s)))
        facts.extend(_card_facts(cid, kind, prop, mtypes, negates, effects, summon, line))
        facts.extend(
            Fact(
                cid,
                "instance_of",
                concept_id(TRAITS[t]),
                None,
                "curated",
                {"file": "cards.yaml", "line": line},
            )
            for t in traits
        )
    return Curated(tuple(nodes), tuple(facts), tuple(entries))


LP_COST_KINDS = {"maintenance", "activation", "effect"}


def _lp_cost(path: Path, line: int, item: dict[str, Any]) -> dict[str, Any] | None:
    """A card's Life Point cost: {amount: positive int, kind: maintenance|activation|effect}."""
    raw = item.get("lp_cost")
    if raw is None:
        return None
    amount = raw.get("amount") if isinstance(raw, dict) else None
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if not isinstance(amount, int) or amount <= 0 or kind not in LP_COST_KINDS:
        raise IngestError(
            str(path),
            f"entry {item.get('id')!r}: lp_cost must be {{amount: positive integer, kind: "
            f"{'|'.join(sorted(LP_COST_KINDS))}}}",
            line,
        )
    return {"amount": amount, "kind": kind}


def _card_facts(
    cid: str,
    kind: str,
    prop: str | None,
    mtypes: list[str],
    negates: list[str],
    effects: list[str],
    summon: list[str],
    line: int,
) -> list[Fact]:
    meta = {"file": "cards.yaml", "line": line}
    out: list[Fact] = []

    def add(pred: str, obj: str, **extra: Any) -> None:
        out.append(Fact(cid, pred, obj, None, "curated", {**meta, **extra}))

    if kind == "monster":
        add("instance_of", concept_id("monster-card"))
        for mt in mtypes:
            add("instance_of", concept_id(f"{mt}-monster" if mt != "trap-monster" else mt))
    else:
        add("instance_of", concept_id(f"{kind}-card"))
        add("instance_of", concept_id(f"{prop}-{kind}"))
        if "trap-monster" in mtypes:  # a Trap Card that Special Summons itself as a monster
            add("instance_of", concept_id("trap-monster"))
    for eff in effects:
        add("has_effect_type", concept_id(f"{eff}-effect"))
    for kind_ in summon:
        add("summoned_by", concept_id(f"{kind_}-special-summon"))
    for value in negates:
        add("has_capability", concept_id(CAPABILITY[value]), scope=value)
    return out


def load_glossary(path: Path) -> Curated:
    """Concept nodes, their curated facts (broader, spell speed) and linker entries."""
    text = _read(path)
    nodes: list[Node] = []
    facts: list[Fact] = []
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for line, item in _items(path, text, "concepts"):
        slug = str(_need(path, line, item, "id"))
        en = str(_need(path, line, item, "en"))
        pt = str(_need(path, line, item, "pt"))
        if slug in seen:
            raise IngestError(
                str(path), f"duplicate concept id {slug!r} (first at line {seen[slug]})", line
            )
        seen[slug] = line
        if slugify(slug) != slug:
            raise IngestError(str(path), f"concept id {slug!r} is not a slug", line)
        cid = concept_id(slug)
        aliases = [str(a) for a in item.get("aliases") or []]
        # Players drop a leading article: "The White Stone of Legend" → "White Stone of Legend".
        for name in (en, item.get("pt")):
            bare = _ARTICLE.sub("", str(name or ""))
            if name and bare != name and len(bare) >= 8 and bare not in aliases:
                aliases.append(bare)
        props: dict[str, Any] = {"aliases": aliases, "line": line}
        for key in ("definition_en", "definition_pt"):
            if item.get(key):
                props[key] = str(item[key])
        meta = {"file": "glossary.yaml", "line": line}
        speed = item.get("spell_speed")
        if speed == "none":
            # An action, not an activation (a Summon, a Set): it has no Spell Speed.
            facts.append(
                Fact(cid, "instance_of", concept_id("speedless-action"), None, "curated", meta)
            )
        elif speed is not None:
            if speed not in (1, 2, 3):
                raise IngestError(
                    str(path), f"concept {slug!r}: spell_speed must be 1, 2, 3 or none", line
                )
            props["spell_speed"] = speed
            facts.append(
                Fact(
                    cid,
                    "has_spell_speed",
                    concept_id(f"spell-speed-{speed}"),
                    None,
                    "curated",
                    meta,
                )
            )
        introduced = item.get("introduced")
        if introduced is not None:
            if not isinstance(introduced, int) or not 1999 <= introduced <= 2100:
                raise IngestError(
                    str(path), f"concept {slug!r}: introduced must be a year (e.g. 2014)", line
                )
            props["introduced"] = introduced
        if item.get("broader"):
            facts.append(
                Fact(cid, "broader", concept_id(str(item["broader"])), None, "curated", meta)
            )
        # Kinds that exclude each other (a Limited card is not Semi-Limited, an Ignition Effect
        # is not a Trigger Effect): a rule about one says nothing of the other.
        disjoint = item.get("disjoint_with") or []
        if not isinstance(disjoint, list):
            raise IngestError(
                str(path), f"concept {slug!r}: disjoint_with must be a list of concept ids", line
            )
        for other in disjoint:
            facts.append(Fact(cid, "disjoint_with", concept_id(str(other)), None, "curated", meta))
        activated = item.get("activated")
        if activated is not None:
            if not isinstance(activated, bool):
                raise IngestError(
                    str(path), f"concept {slug!r}: activated must be true or false", line
                )
            if not activated:
                facts.append(
                    Fact(cid, "applies_without", concept_id("activation"), None, "curated", meta)
                )
        nodes.append(Node(id=cid, type="Concept", label_pt=pt, label_en=en, props=props))
        entries.append(Entry(cid, "Concept", en, (en, pt, *aliases)))
    known = {n.id for n in nodes}
    for f in facts:
        if f.object not in known:
            raise IngestError(
                str(path), f"concept {f.subject!r} refers to unknown {f.object!r}", f.props["line"]
            )
    return Curated(tuple(nodes), tuple(facts), tuple(entries))


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError as exc:
        raise IngestError(str(path), "file not found") from exc
    except UnicodeDecodeError as exc:
        raise IngestError(str(path), f"not valid UTF-8 at byte {exc.start}") from exc
    except OSError as exc:
        raise IngestError(str(path), f"cannot read: {exc.strerror}") from exc
