"""Deck checks: a `.ydk` file or a plain card list, checked against a format's card rules.

Parsing is forgiving and exact about what it could not read: every entry keeps its line number,
so a malformed line, an unknown password or an unknown name is reported naming it (with the
closest cards). Names may be English or official pt-BR, without accents or with small typos: a
clearly best match is taken and listed under `resolved`.

The checks are the spec's declarations (`kb.formats`): deck sizes, the card pool, the
Forbidden & Limited list counted across Main+Extra+Side, three copies otherwise, and Extra Deck
monsters (Fusion, Synchro, Xyz, Link) only in the Extra Deck. Each violation cites its rule
(`kb.cards.banlist.RuleSources`). A format played with one deck per duelist (Tag Duel) checks each
duelist's deck on its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import Field

from kb.cards.banlist import Closed, RuleSources, Source, in_pool, limit_of
from kb.cards.search import CardIndex, normalize
from kb.cards.table import CardRecord
from kb.errors import InvalidQuery
from kb.formats import FormatSpec

Part = Literal["main", "extra", "side"]
PARTS: tuple[Part, ...] = ("main", "extra", "side")
PART_LABELS: dict[Part, str] = {"main": "Main", "extra": "Extra", "side": "Side"}
EXTRA_DECK_CLASSES = frozenset({"fusion", "synchro", "xyz", "link"})
_YDK_HEADERS: dict[str, Part] = {"#main": "main", "#extra": "extra", "!side": "side"}
_LIST_HEADERS: dict[str, Part] = {
    **dict.fromkeys(
        ["main", "main deck", "maindeck", "deck", "deck principal", "principal"], "main"
    ),
    **dict.fromkeys(["extra", "extra deck", "deck adicional", "adicional", "deck extra"], "extra"),
    **dict.fromkeys(["side", "side deck", "deck auxiliar", "auxiliar", "deck lateral"], "side"),
}
# Headers inside a part ("Monsters:", "Magias:") that do not change it.
# fmt: off
_GROUP_HEADERS = frozenset({
    "monster", "monsters", "spell", "spells", "trap", "traps", "monster cards", "spell cards",
    "trap cards", "monstro", "monstros", "magia", "magias", "armadilha", "armadilhas", "cards",
})
# fmt: on
_HEADER_COUNT = re.compile(r"\s*(?:\(\s*\d+\s*\)|[:\-]?\s*\d+)\s*:?\s*$")
_COUNT_FIRST = re.compile(r"^(\d{1,3})(?:\s*[x×]\s+|[x×](?=\S)|\s+)(.+)$", re.I)
_COUNT_LAST = re.compile(r"^(.+?)\s*[x×]\s*(\d{1,3})$", re.I)
_PASSWORD = re.compile(r"^(\d{1,10})\s*(?:#.*)?$")


@dataclass(frozen=True)
class Entry:
    """One card line: where it is, what it says, and how many copies."""

    line: int
    text: str
    part: Part
    count: int
    name: str | None = None
    password: int | None = None


@dataclass(frozen=True)
class ParsedDeck:
    kind: Literal["ydk", "list"]
    entries: tuple[Entry, ...]
    malformed: tuple[tuple[int, str, str], ...] = ()  # (line, text, why)


class Counts(Closed):
    main: int
    extra: int
    side: int


class Violation(Closed):
    kind: str = Field(
        description="forbidden, limited, semi-limited, copies, not-in-pool, misplaced, "
        "main-size, extra-size, side-size, unknown-card or malformed."
    )
    card: str | None = Field(description="The card's English name (null for deck-wide problems).")
    card_id: str | None = None
    message: str
    source: Source | None = None
    line: int | None = Field(
        default=None, description="The line of the entry, when one is at fault."
    )
    entry: str | None = None
    suggestions: list[str] = Field(default_factory=list)
    duelist: int | None = Field(
        default=None, description="Which deck (1, 2) when several were sent."
    )


class Resolved(Closed):
    """A name written otherwise (typo, no accents) and the card it was taken to mean."""

    line: int
    entry: str
    card: str
    card_id: str
    score: float
    duelist: int | None = None


class DeckReport(Closed):
    """One deck checked (POST /deck/validate, `ygo-rulings deck check --json`)."""

    format: str
    ok: bool
    counts: Counts
    violations: list[Violation]
    resolved: list[Resolved] = Field(default_factory=list)
    decks: list[DeckReport] = Field(
        default_factory=list,
        description="Each duelist's own report, when several decks were sent (a format with "
        "one deck per duelist); the top level then sums the counts and joins the violations.",
    )


# --- parsing ---------------------------------------------------------------------------------


def is_ydk(text: str) -> bool:
    for raw in text.splitlines():
        line = raw.strip().lower()
        if line in _YDK_HEADERS or line.startswith("#created by"):
            return True
    return False


def parse_deck(text: str) -> ParsedDeck:
    """A `.ydk` file (passwords under #main, #extra, !side) or a plain list of names."""
    return _parse_ydk(text) if is_ydk(text) else _parse_list(text)


def _parse_ydk(text: str) -> ParsedDeck:
    part: Part = "main"
    entries: list[Entry] = []
    bad: list[tuple[int, str, str]] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line[0] in "#!":
            part = _YDK_HEADERS.get(line.lower().split()[0], part)
            continue
        m = _PASSWORD.match(line)
        if m is None:
            bad.append((n, line, "expected a card password (digits) in a .ydk file"))
            continue
        entries.append(Entry(n, line, part, 1, password=int(m.group(1))))
    return ParsedDeck("ydk", tuple(entries), tuple(bad))


def _header(line: str) -> Part | Literal["group"] | None:
    key = normalize(_HEADER_COUNT.sub("", line).rstrip(":"))
    if key in _LIST_HEADERS:
        return _LIST_HEADERS[key]
    if key in _GROUP_HEADERS:
        return "group"
    return None


def _parse_list(text: str) -> ParsedDeck:
    part: Part = "main"
    entries: list[Entry] = []
    bad: list[tuple[int, str, str]] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", "//")) or not re.search(r"\w", line):
            continue
        header = _header(line)
        if header == "group":
            continue
        if header is not None:
            part = header
            continue
        entry = _list_entry(n, line, part)
        if isinstance(entry, str):
            bad.append((n, line, entry))
        else:
            entries.append(entry)
    return ParsedDeck("list", tuple(entries), tuple(bad))


def _list_entry(n: int, line: str, part: Part) -> Entry | str:
    """The entry of one list line, or why it is not one."""
    if re.fullmatch(r"\d{4,10}", line):
        return Entry(n, line, part, 1, password=int(line))
    count, name = 1, line
    m = _COUNT_FIRST.match(line)
    if m:
        count, name = int(m.group(1)), m.group(2)
    else:
        m = _COUNT_LAST.match(line)
        if m:
            name, count = m.group(1), int(m.group(2))
    name = name.strip().strip("\"'“”").strip()
    if count < 1:
        return f"a count of {count}: list 1 or more copies"
    if not normalize(name):
        return "no card name"
    return Entry(n, line, part, count, name=name)


# --- checking --------------------------------------------------------------------------------


@dataclass
class _Tally:
    record: CardRecord
    by_part: dict[Part, int] = field(default_factory=lambda: dict.fromkeys(PARTS, 0))

    @property
    def total(self) -> int:
        return sum(self.by_part.values())

    def where(self) -> str:
        return ", ".join(f"{c} in {PART_LABELS[p]}" for p, c in self.by_part.items() if c)


def _written_as(name: str, record: CardRecord) -> bool:
    """The entry spells one of the card's names (up to case and spacing)."""
    written = " ".join(name.split()).casefold()
    return any(
        written == " ".join(n.split()).casefold()
        for n in (record.name_en, record.name_pt, *record.aliases)
        if n
    )


def _named(record: CardRecord) -> str:
    return f"{record.name_en} ({record.name_pt})" if record.name_pt else record.name_en


def check_deck(
    text: str,
    index: CardIndex,
    spec: FormatSpec,
    sources: RuleSources,
    max_copies: int = 200,
) -> DeckReport:
    """Every violation of the format's card rules in one deck."""
    if spec.deck is None:
        raise InvalidQuery("format", f"format {spec.id!r} declares no deck rules")
    parsed = parse_deck(text)
    if not parsed.entries:
        what = (
            f"; line {parsed.malformed[0][0]}: {parsed.malformed[0][2]}" if parsed.malformed else ""
        )
        raise InvalidQuery(
            "deck",
            "holds no card entries: expected a .ydk file (passwords under #main, #extra, !side) "
            f"or a list of cards, one a line ('3x Name'){what}",
        )
    copies = sum(e.count for e in parsed.entries)
    if copies > max_copies:
        raise InvalidQuery("deck", f"lists {copies} cards; the limit is {max_copies}")
    violations: list[Violation] = []
    resolved: list[Resolved] = []
    counts = dict.fromkeys(PARTS, 0)
    tallies: dict[str, _Tally] = {}
    for e in (_whole_name(x, index) for x in parsed.entries):
        counts[e.part] += e.count
        record = _resolve(e, index, violations, resolved)
        if record is None:
            continue
        tally = tallies.setdefault(record.id, _Tally(record))
        tally.by_part[e.part] += e.count
    for line, body, why in parsed.malformed:
        violations.append(
            Violation(
                kind="malformed",
                card=None,
                message=f"line {line}: {body!r} is not a card line ({why})",
                line=line,
                entry=body,
            )
        )
    violations.extend(_size_violations(counts, spec, sources))
    for tally in tallies.values():
        violations.extend(_card_violations(tally, spec, sources))
    violations.sort(key=lambda v: (v.kind, v.card or "", v.line or 0))
    return DeckReport(
        format=spec.id,
        ok=not violations,
        counts=Counts(**counts),
        violations=violations,
        resolved=resolved,
    )


def _whole_name(e: Entry, index: CardIndex) -> Entry:
    """A line whose whole text is a card's name is one copy of it ("7 Colored Fish")."""
    if e.name is None or e.name == e.text:
        return e
    if normalize(e.name) not in index.exact and normalize(e.text) in index.exact:
        return Entry(e.line, e.text, e.part, 1, name=e.text)
    return e


def _resolve(
    e: Entry, index: CardIndex, violations: list[Violation], resolved: list[Resolved]
) -> CardRecord | None:
    if e.password is not None:
        ri = index.by_password.get(e.password)
        if ri is not None:
            return index.records[ri]
        violations.append(
            Violation(
                kind="unknown-card",
                card=None,
                message=f"line {e.line}: password {e.password} is no known card",
                line=e.line,
                entry=e.text,
            )
        )
        return None
    assert e.name is not None
    record, score = index.resolve(e.name)
    if record is None:
        close = index.suggestions(e.name)
        hint = f"; did you mean: {', '.join(close)}?" if close else ""
        violations.append(
            Violation(
                kind="unknown-card",
                card=None,
                message=f"line {e.line}: {e.name!r} names no card{hint}",
                line=e.line,
                entry=e.text,
                suggestions=close,
            )
        )
        return None
    if not _written_as(e.name, record):
        resolved.append(
            Resolved(
                line=e.line,
                entry=e.name,
                card=record.name_en,
                card_id=record.id,
                score=round(score, 3),
            )
        )
    return record


def _size_violations(
    counts: dict[Part, int], spec: FormatSpec, sources: RuleSources
) -> list[Violation]:
    d = spec.deck
    assert d is not None
    label = spec.label_en
    out = []
    if not d.main_min <= counts["main"] <= d.main_max:
        out.append(
            Violation(
                kind="main-size",
                card=None,
                message=f"the Main Deck holds {counts['main']} cards; {label} allows "
                f"{d.main_min} to {d.main_max}",
                source=sources.source("main-size"),
            )
        )
    maxima: tuple[tuple[Part, int], ...] = (("extra", d.extra_max), ("side", d.side_max))
    for part, most in maxima:
        if counts[part] > most:
            out.append(
                Violation(
                    kind=f"{part}-size",
                    card=None,
                    message=f"the {PART_LABELS[part]} Deck holds {counts[part]} cards; "
                    f"{label} allows at most {most}",
                    source=sources.source(f"{part}-size"),
                )
            )
    return out


_LIMIT_KINDS = {0: "forbidden", 1: "limited", 2: "semi-limited", 3: "copies"}
_LIMIT_WORDS = {
    0: "is Forbidden",
    1: "is Limited (at most 1 copy across Main, Extra and Side Deck)",
    2: "is Semi-Limited (at most 2 copies across Main, Extra and Side Deck)",
    3: "may have at most 3 copies across Main, Extra and Side Deck",
}


def _card_violations(tally: _Tally, spec: FormatSpec, sources: RuleSources) -> list[Violation]:
    r = tally.record
    out: list[Violation] = []

    def add(kind: str, message: str) -> None:
        out.append(
            Violation(
                kind=kind,
                card=r.name_en,
                card_id=r.id,
                message=message,
                source=sources.source(kind),
            )
        )

    if not in_pool(r, spec):
        released = f"; first TCG release {r.first_tcg_date}" if r.first_tcg_date else ""
        add(
            "not-in-pool",
            f"{_named(r)} is not in the {spec.label_en} card pool{released} ({tally.where()})",
        )
    else:
        limit = limit_of(r, spec)
        if tally.total > limit:
            add(
                _LIMIT_KINDS[limit],
                f"{_named(r)} {_LIMIT_WORDS[limit]} in {spec.label_en}; "
                f"the deck holds {tally.total} ({tally.where()})",
            )
    extra_card = r.card_type == "monster" and bool(EXTRA_DECK_CLASSES & set(r.monster_classes))
    if extra_card and tally.by_part["main"]:
        add("misplaced", f"{_named(r)} is an Extra Deck monster but is listed in the Main Deck")
    elif not extra_card and tally.by_part["extra"]:
        add(
            "misplaced",
            f"{_named(r)} cannot be in the Extra Deck (not a Fusion, Synchro, Xyz or Link Monster)",
        )
    return out


def check_decks(
    texts: Sequence[str],
    index: CardIndex,
    spec: FormatSpec,
    sources: RuleSources,
    max_copies: int = 200,
) -> DeckReport:
    """One deck, or each duelist's own deck (a format with `per_duelist_decks`), each checked
    alone; with several decks the top level sums the counts and joins the violations."""
    if not texts:
        raise InvalidQuery("deck", "must not be empty")
    if len(texts) > 1 and not spec.per_duelist_decks:
        raise InvalidQuery(
            "decks", f"format {spec.id!r} is played with one deck per player: send one deck"
        )
    if len(texts) == 1:
        return check_deck(texts[0], index, spec, sources, max_copies)
    reports = []
    for i, text in enumerate(texts, start=1):
        try:
            report = check_deck(text, index, spec, sources, max_copies)
        except InvalidQuery as exc:
            raise InvalidQuery(f"decks[{i - 1}]", exc.reason) from exc
        for v in report.violations:
            v.duelist = i
        for res in report.resolved:
            res.duelist = i
        reports.append(report)
    return DeckReport(
        format=spec.id,
        ok=all(r.ok for r in reports),
        counts=Counts(**{p: sum(getattr(r.counts, p) for r in reports) for p in PARTS}),
        violations=[v for r in reports for v in r.violations],
        resolved=[x for r in reports for x in r.resolved],
        decks=reports,
    )
