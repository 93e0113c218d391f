"""Deck checks: a `.ydk` file or a plain card list, checked against a format's card rules.

The deck is read by `kb.cards.deck_list` (every entry keeps its line). Names may be English or
official pt-BR, without accents or with small typos: a clearly best match is taken and listed
under `resolved`; an unknown name or password is reported naming its line (with the closest cards).

The checks are the spec's declarations (`kb.formats`): deck sizes, the card pool, the
Forbidden & Limited list counted across Main+Extra+Side, three copies otherwise, and Extra Deck
monsters (Fusion, Synchro, Xyz, Link) only in the Extra Deck. Each violation cites its rule
(`kb.cards.banlist.RuleSources`). A format played with one deck per duelist (Tag Duel) checks each
duelist's deck on its own.

Every violation that comes from lines of the deck names them: `lines` lists them all (each line
holding a copy of a card over its limit or outside the pool, each misplaced line, each line of a
part past its maximum) and `line` is the one to edit first, where the deck goes wrong reading
down: the line whose copies pass the card's limit (a Forbidden card's first line), the first
misplaced line, the line holding the card past a part's maximum. A deck-wide problem that no line
causes (a Main Deck under its minimum) has `line: null` and no `lines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import Field

from kb.cards.banlist import Closed, RuleSources, Source, in_pool, limit_of
from kb.cards.deck_list import PART_LABELS, PARTS, Entry, Part, is_ydk, parse_deck
from kb.cards.search import CardIndex, normalize
from kb.cards.table import CardRecord
from kb.errors import InvalidQuery
from kb.formats import FormatSpec

__all__ = [
    "Counts",
    "DeckReport",
    "Resolved",
    "Violation",
    "check_deck",
    "check_decks",
    "is_ydk",
    "parse_deck",
]

EXTRA_DECK_CLASSES = frozenset({"fusion", "synchro", "xyz", "link"})


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
        default=None,
        description="The line to fix first (1-based): where the deck, read down, breaks the rule "
        "(the line whose copies pass the card's limit, the first misplaced line, the line past a "
        "part's maximum, the unknown or malformed line); null for a deck-wide problem no line "
        "causes (a Main Deck under its minimum).",
    )
    lines: list[int] = Field(
        default_factory=list,
        description="Every line the violation comes from: each line holding a copy of the card "
        "at fault, each misplaced line, each line of a part past its maximum.",
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


# --- checking --------------------------------------------------------------------------------


@dataclass
class _Tally:
    """One card's copies: the entries listing it, in line order."""

    record: CardRecord
    entries: list[Entry] = field(default_factory=list)
    by_part: dict[Part, int] = field(default_factory=lambda: dict.fromkeys(PARTS, 0))

    def add(self, e: Entry) -> None:
        self.entries.append(e)
        self.by_part[e.part] += e.count

    @property
    def total(self) -> int:
        return sum(self.by_part.values())

    def where(self) -> str:
        return ", ".join(f"{c} in {PART_LABELS[p]}" for p, c in self.by_part.items() if c)

    def lines(self, part: Part | None = None) -> list[int]:
        return [e.line for e in self.entries if part is None or e.part == part]


def _past(entries: Sequence[Entry], most: int) -> Entry | None:
    """The entry whose copies take a running count (in line order) past `most`."""
    total = 0
    for e in sorted(entries, key=lambda e: e.line):
        total += e.count
        if total > most:
            return e
    return None


def _at(lines: list[int]) -> str:
    """Where in the deck, for a message: `line 12`, `lines 12, 40`."""
    word = "line" if len(lines) == 1 else "lines"
    return f"{word} {', '.join(map(str, lines))}"


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
    entries = [_whole_name(x, index) for x in parsed.entries]
    for e in entries:
        counts[e.part] += e.count
        record = _resolve(e, index, violations, resolved)
        if record is None:
            continue
        tallies.setdefault(record.id, _Tally(record)).add(e)
    for line, body, why in parsed.malformed:
        violations.append(
            Violation(
                kind="malformed",
                card=None,
                message=f"line {line}: {body!r} is not a card line ({why})",
                line=line,
                lines=[line],
                entry=body,
            )
        )
    violations.extend(_size_violations(counts, entries, spec, sources))
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
                lines=[e.line],
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
                lines=[e.line],
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
    counts: dict[Part, int], entries: Sequence[Entry], spec: FormatSpec, sources: RuleSources
) -> list[Violation]:
    d = spec.deck
    assert d is not None
    label = spec.label_en
    out = []
    if counts["main"] < d.main_min:
        out.append(
            Violation(
                kind="main-size",
                card=None,
                message=f"the Main Deck holds {counts['main']} cards; {label} allows "
                f"{d.main_min} to {d.main_max}",
                source=sources.source("main-size"),
            )
        )
    maxima: tuple[tuple[Part, int], ...] = (
        ("main", d.main_max),
        ("extra", d.extra_max),
        ("side", d.side_max),
    )
    for part, most in maxima:
        if counts[part] <= most:
            continue
        listed = sorted((e for e in entries if e.part == part), key=lambda e: e.line)
        first = _past(listed, most)
        lines = [e.line for e in listed if first is not None and e.line >= first.line]
        if part == "main":
            allowed = f"{label} allows {d.main_min} to {most}"
        else:
            allowed = f"{label} allows at most {most}"
        out.append(
            Violation(
                kind=f"{part}-size",
                card=None,
                message=f"the {PART_LABELS[part]} Deck holds {counts[part]} cards; {allowed}"
                + (f"; card {most + 1} is on line {first.line}" if first else ""),
                source=sources.source(f"{part}-size"),
                line=first.line if first else None,
                lines=lines,
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

    def add(kind: str, message: str, lines: list[int], first: int | None) -> None:
        out.append(
            Violation(
                kind=kind,
                card=r.name_en,
                card_id=r.id,
                message=message,
                source=sources.source(kind),
                line=first,
                lines=lines,
            )
        )

    every = tally.lines()
    if not in_pool(r, spec):
        released = f"; first TCG release {r.first_tcg_date}" if r.first_tcg_date else ""
        add(
            "not-in-pool",
            f"{_named(r)} is not in the {spec.label_en} card pool{released} "
            f"({tally.where()}; {_at(every)})",
            every,
            every[0],
        )
    else:
        limit = limit_of(r, spec)
        over = _past(tally.entries, limit)
        if over is not None:
            add(
                _LIMIT_KINDS[limit],
                f"{_named(r)} {_LIMIT_WORDS[limit]} in {spec.label_en}; "
                f"the deck holds {tally.total} ({tally.where()}; {_at(every)}), past the limit "
                f"from line {over.line}",
                every,
                over.line,
            )
    extra_card = r.card_type == "monster" and bool(EXTRA_DECK_CLASSES & set(r.monster_classes))
    wrong: Part = "main" if extra_card else "extra"
    if tally.by_part[wrong]:
        lines = tally.lines(wrong)
        if extra_card:
            why = "is an Extra Deck monster but is listed in the Main Deck"
        else:
            why = "cannot be in the Extra Deck (not a Fusion, Synchro, Xyz or Link Monster)"
        add("misplaced", f"{_named(r)} {why} ({_at(lines)})", lines, lines[0])
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
            raise InvalidQuery(f"decks.{i - 1}", exc.reason) from exc
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
