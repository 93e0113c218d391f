"""Merging card drafts from several sources (and an existing table) into one record per card.

A draft joins the card with the same password, else the same Konami id, else the same folded
English name (when no id says they differ); otherwise it starts a new card. Later sources fill
and update fields (None means "this source does not say"); aliases accumulate. Two printings of
one card with different passwords and the same Konami id (an alternate password) are one card:
it keeps the password of its earliest TCG printing, the others are reported.

Mechanics are inferred from the merged texts of the cards that have texts in this import; a card
known only from the existing table keeps its mechanics. Slugs are `kb.ids.slugify(name_en)`;
when several cards share one, the card the curated table names (then the lowest password) keeps
it and each other card gets `-<password>` (or `-k<konami id>` without a password).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, fields
from typing import Any

from ingest.carddata.draft import CardDraft, LimitList, is_flavour, settle_normal_effect
from ingest.carddata.mechanics import CardFacts, infer
from kb.cards.table import CardRecord
from kb.errors import IngestError
from kb.ids import fold, slugify

# Fields a draft can set (the record's, without the slug and the derived ones).
_DATA_FIELDS = (
    "name_en",
    "password",
    "konami_id",
    "name_pt",
    "card_type",
    "property",
    "attribute",
    "race",
    "monster_classes",
    "type_line",
    "level",
    "rank",
    "link_rating",
    "atk",
    "defense",
    "first_tcg_date",
    "edison_pool",
    "edison_limit",
    "tcg_2010_03",
    "tcg_current",
)
_MECHANICS = (
    "effect_types",
    "spell_speeds",
    "special_summon",
    "negates",
    "modifies_atk_def",
    "lp_cost_amount",
    "lp_cost_kind",
)


@dataclass
class Entry:
    """One card being merged."""

    values: dict[str, Any]
    texts: dict[str, str] = field(default_factory=dict)
    aliases: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)
    mechanics: dict[str, Any] = field(default_factory=dict)
    alternates: set[int] = field(default_factory=set)
    origin: str = ""

    @property
    def name(self) -> str:
        return str(self.values.get("name_en") or self.values.get("password") or "?")


def entry_of(record: CardRecord) -> Entry:
    """An existing table row as a merge entry (no texts: its mechanics are kept as they are)."""
    values = {f: getattr(record, f) for f in _DATA_FIELDS}
    return Entry(
        values=values,
        aliases=list(record.aliases),
        datasets=list(record.datasets),
        mechanics={f: getattr(record, f) for f in _MECHANICS},
        origin=f"table ({record.slug})",
    )


class CardMerger:
    """Accumulates drafts into entries, indexed by password, Konami id and folded name."""

    def __init__(self, base: list[CardRecord] | None = None) -> None:
        self.entries: list[Entry] = []
        self._by_password: dict[int, Entry] = {}
        self._by_konami: dict[int, Entry] = {}
        self._by_name: dict[str, list[Entry]] = defaultdict(list)
        self._seen: dict[tuple[str, int], str] = {}
        self.alternates: dict[str, list[int]] = {}
        for record in base or []:
            self._index(entry_of(record), new=True)

    def _index(self, entry: Entry, new: bool = False) -> None:
        if new:
            self.entries.append(entry)
        pw, kid, name = (entry.values.get(k) for k in ("password", "konami_id", "name_en"))
        if pw is not None:
            self._by_password.setdefault(pw, entry)
        for alt in entry.alternates:
            self._by_password.setdefault(alt, entry)
        if kid is not None:
            self._by_konami.setdefault(kid, entry)
        if name and entry not in self._by_name[fold(name)]:
            self._by_name[fold(name)].append(entry)

    def find(self, password: int | None, konami_id: int | None, name: str | None) -> Entry | None:
        """The entry a card belongs to: by password, then Konami id, then folded English name."""
        if password is not None and password in self._by_password:
            return self._by_password[password]
        if konami_id is not None and konami_id in self._by_konami:
            return self._by_konami[konami_id]
        if name:
            for e in self._by_name.get(fold(name), []):
                if _compatible(e, password, konami_id):
                    return e
        return None

    def add(self, draft: CardDraft, source: str) -> None:
        """Merge one draft; a second entry for one password in one source is an error."""
        if draft.password is not None:
            key = (source, draft.password)
            if key in self._seen:
                raise IngestError(
                    source,
                    f"duplicate entry for password {draft.password}: {draft.origin} "
                    f"(first: {self._seen[key]})",
                )
            self._seen[key] = draft.origin
        entry = self.find(draft.password, draft.konami_id, draft.name_en)
        if entry is None:
            if not draft.name_en:
                raise IngestError(
                    source, f"{draft.origin}: a card not in the table needs an English name"
                )
            entry = Entry(values={}, origin=draft.origin)
            self._update(entry, draft)
            self._index(entry, new=True)
            return
        self._update(entry, draft)
        self._index(entry)

    def _update(self, entry: Entry, draft: CardDraft) -> None:
        old_pw: int | None = entry.values.get("password")
        old_date = entry.values.get("first_tcg_date")
        for name in _DATA_FIELDS:
            value = getattr(draft, name)
            if name == "monster_classes" and value and entry.values.get(name):
                # One source's type line can be shorter ("Link Monster"): keep every class.
                value = (*entry.values[name], *(c for c in value if c not in entry.values[name]))
            if value is not None:
                entry.values[name] = value
        if old_pw is not None and draft.password is not None and draft.password != old_pw:
            entry.values["password"] = self._primary(entry, old_pw, draft.password, old_date, draft)
            dates = [d for d in (old_date, draft.first_tcg_date) if d]
            entry.values["first_tcg_date"] = min(dates) if dates else None
        for alias in draft.aliases:
            if alias not in entry.aliases:
                entry.aliases.append(alias)
        entry.texts.update(draft.texts)
        if draft.dataset not in entry.datasets:
            entry.datasets.append(draft.dataset)

    def _primary(
        self, entry: Entry, old: int, new: int, old_date: str | None, draft: CardDraft
    ) -> int:
        """Two passwords of one card: the earliest TCG printing's (then the lower) is kept."""
        newer = (draft.first_tcg_date or "9999", new) < (old_date or "9999", old)
        keep, other = (new, old) if newer else (old, new)
        entry.alternates.add(other)
        entry.alternates.discard(keep)
        self.alternates[entry.name] = sorted(entry.alternates)
        return keep

    def apply_limits(self, lst: LimitList) -> int:
        """Set the Edison pool and limits from a list; returns the number of cards it names.

        A whitelist is the whole pool (cards it does not list leave the pool); a plain list sets
        the limits of the cards it names and makes the pool's other cards unlimited. An entry
        whose password is unknown is matched by the name in its comment (alternate artworks);
        an entry matching no card is an error naming the file and line.
        """
        resolved: dict[int, tuple[Entry, int, int]] = {}
        for item in lst.entries:
            entry = self.find(item.password, None, None)
            if entry is None and item.comment:
                entry = self.find(None, None, item.comment)
            if entry is None:
                hint = f" ({item.comment})" if item.comment else ""
                raise IngestError(lst.path, f"unknown password {item.password}{hint}", item.line)
            key = id(entry)
            if key in resolved and resolved[key][1] != item.count:
                first = resolved[key][2]
                raise IngestError(
                    lst.path,
                    f"{entry.name} is listed twice with different counts (first at line {first})",
                    item.line,
                )
            resolved[key] = (entry, item.count, item.line)
        listed = {id(e) for e, _, _ in resolved.values()}
        for e in self.entries:
            if id(e) in listed:
                continue
            if lst.whitelist:
                e.values["edison_pool"], e.values["edison_limit"] = False, None
            elif e.values.get("edison_pool"):
                e.values["edison_limit"] = 3
        for e, count, _ in resolved.values():
            if count < 0:
                e.values["edison_pool"], e.values["edison_limit"] = False, None
                continue
            if lst.whitelist:
                e.values["edison_pool"] = True
            e.values["edison_limit"] = count
            dataset = "edopro-lflist"
            if dataset not in e.datasets:
                e.datasets.append(dataset)
        return len(resolved)

    def records(self, curated_names: dict[str, str] | None = None) -> list[CardRecord]:
        """The merged cards as records, with mechanics inferred and unique slugs."""
        curated_names = curated_names or {}
        built = [(e, _record_values(e)) for e in self.entries]
        groups: dict[str, list[tuple[Entry, dict[str, Any]]]] = defaultdict(list)
        for e, values in built:
            groups[slugify(values["name_en"])].append((e, values))
        out: list[CardRecord] = []
        taken = set(groups)
        for slug, members in groups.items():
            curated_en = curated_names.get(slug)
            members.sort(
                key=lambda m: (
                    m[1]["name_en"] != curated_en,
                    m[1]["password"] is None,
                    m[1]["password"] or 0,
                    m[1]["konami_id"] or 0,
                )
            )
            for rank, (_, values) in enumerate(members):
                final = slug if rank == 0 else _suffixed(slug, values, taken)
                taken.add(final)
                out.append(CardRecord(slug=final, **values))
        return sorted(out, key=lambda r: (r.password or 0, r.slug))


def _compatible(entry: Entry, password: int | None, konami_id: int | None) -> bool:
    """A name match joins a card unless a password or Konami id says they are different cards."""
    epw, ekid = entry.values.get("password"), entry.values.get("konami_id")
    if password is not None and epw is not None and password != epw:
        return False
    return not (konami_id is not None and ekid is not None and konami_id != ekid)


def _suffixed(slug: str, values: dict[str, Any], taken: set[str]) -> str:
    if values["password"] is not None:
        candidate = f"{slug}-{values['password']}"
    elif values["konami_id"] is not None:
        candidate = f"{slug}-k{values['konami_id']}"
    else:
        candidate = f"{slug}-2"
    n = 2
    while candidate in taken:
        n += 1
        candidate = f"{slug}-{n}"
    return candidate


def _record_values(e: Entry) -> dict[str, Any]:
    """CardRecord keyword values of an entry (all but the slug), mechanics inferred."""
    defaults = {f.name: f.default for f in fields(CardRecord)}
    v = {name: e.values.get(name, defaults[name]) for name in _DATA_FIELDS}
    if not v.get("name_en"):
        raise IngestError(e.origin, f"card {e.name} has no English name")
    kind = v.get("card_type") or "monster"
    v["card_type"] = kind
    classes = tuple(v.get("monster_classes") or ())
    mech = dict(e.mechanics)
    if e.texts:
        own = tuple(n for n in (v.get("name_en"), v.get("name_pt")) if n)
        if kind == "monster" and not {"normal", "effect"} & set(classes):
            first = infer(CardFacts(kind, v.get("property"), classes, e.texts, own))
            text = e.texts.get("en") or e.texts.get("pt") or ""
            classes = settle_normal_effect(
                classes, bool(first.effect_types) and not is_flavour(text)
            )
        found = infer(CardFacts(kind, v.get("property"), classes, e.texts, own))
        mech = {f: getattr(found, f) for f in _MECHANICS}
        if found.trap_monster and "trap-monster" not in classes:
            classes = (*classes, "trap-monster")
    v["monster_classes"] = classes
    v["aliases"] = tuple(a for a in e.aliases if a not in (v.get("name_en"), v.get("name_pt")))
    v["datasets"] = tuple(e.datasets)
    v["edison_pool"] = bool(v.get("edison_pool"))
    for name in _MECHANICS:
        v[name] = mech.get(name, defaults[name])
    return v
