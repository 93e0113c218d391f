"""A card text as clauses, and each clause's kind: an effect type, a procedure or a note.

A text is split into sentences (outside parentheses; "●" list items stay with the sentence they
belong to); quoted card names are masked first so a name's own periods and colons do not count.
Each clause is classified from its punctuation and wording (see `lexicon.py`):

* `flip`: opens with "FLIP:";  `quick`: "(Quick Effect)" (or "during either player's turn");
* `trigger`: a condition before the colon that is an event ("If this card is sent to the GY:")
  or a phase ("During the End Phase:"), or, in old wording, "When …, <action>";
* `ignition`: "You can …;" / "Once per turn: You can …" / a state condition ("If this card is in
  your hand:") / "During your Main Phase:";
* `continuous`: a statement with no colon or semicolon ("Your opponent cannot Set cards.");
* `procedure`: a summoning condition or procedure ("Cannot be Normal Summoned/Set. Must first be
  Special Summoned (from your hand) by …", "If only your opponent controls a monster, you can
  Special Summon this card (from your hand)."), which is not an effect;
* `action`: an imperative statement ("Destroy all monsters.") — what a Spell/Trap does when it
  resolves, not a lasting effect;
* `note`: once-per-turn notes, parenthetical reminders, naming notes, sentences that qualify the
  effect before them ("You must control no Spells to activate and to resolve this effect.").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.carddata.lexicon import NAMED, OWN, Lexicon

ACTIVATED = ("ignition", "trigger", "quick", "flip")
# Kinds a clause can have besides the effect types: a summoning procedure, a note, and an
# imperative action (what a Spell/Trap does on resolution; on a monster, an effect's part).
_QUOTED = re.compile(r"[\"“”«»]([^\"“”«»\n]{1,120})[\"“”«»]")
_PARENS = re.compile(r"\([^()]*\)")
_SPACES = re.compile(r"\s+")
_BULLET = "●"


@dataclass(frozen=True)
class Clause:
    """One sentence of a card text. `bare` has the parentheticals removed; `condition` is the
    bare text before its first colon ('' when it has none) and `body` the text after it."""

    raw: str
    bare: str
    condition: str
    body: str
    kind: str


def mask_names(text: str, own_names: tuple[str, ...]) -> str:
    """Quoted names → OWNCARD (the card's own names) or NAMEDCARD (any other)."""
    own = {n.casefold() for n in own_names if n}

    def repl(m: re.Match[str]) -> str:
        return OWN if m.group(1).strip().casefold() in own else NAMED

    return _QUOTED.sub(repl, text)


def sentences(text: str) -> list[str]:
    """Sentences outside parentheses; '●' items are joined to the sentence before them."""
    out: list[str] = []
    buf: list[str] = []
    depth = 0
    n = len(text)
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        end = ch == "\n" or (ch == "." and (i + 1 == n or text[i + 1].isspace()))
        if depth == 0 and end:
            if ch == ".":
                buf.append(ch)
            piece = "".join(buf).strip()
            if piece:
                out.append(piece)
            buf = []
        else:
            buf.append(ch)
    piece = "".join(buf).strip()
    if piece:
        out.append(piece)
    merged: list[str] = []
    for s in out:
        if merged and (s.startswith(_BULLET) or s.startswith("•")):
            merged[-1] = f"{merged[-1]} {s}"
        else:
            merged.append(s)
    return merged


def strip_parens(text: str) -> str:
    """The text without parenthetical parts (nested ones too), spaces collapsed."""
    prev = None
    while prev != text:
        prev, text = text, _PARENS.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def clauses(text: str, lex: Lexicon, own_names: tuple[str, ...] = ()) -> list[Clause]:
    """The classified clauses of one card text (a monster's or a Spell/Trap's)."""
    out: list[Clause] = []
    for raw in sentences(mask_names(text, own_names)):
        head = raw.split(_BULLET, 1)[0].strip()
        bare = strip_parens(head)
        cond, sep, body = bare.partition(":")
        if not sep:
            cond, body = "", bare
        kind = classify(raw, head, bare, cond.strip() if sep else None, body.strip(), lex)
        # The items of a list ("● …") are clauses of their own when the sentence before them
        # is a statement, a note ("You can only use each of the following effects …") or a
        # list head ("… activate 1 of the following effects:"); otherwise they are the choices
        # of one effect and stay with it.
        listing = _BULLET in raw and (not head or (bool(sep) and not body.strip()))
        if not listing:
            out.append(Clause(raw, bare, cond.strip(), body.strip(), kind))
        if _BULLET in raw and (listing or kind in ("continuous", "note", "action")):
            for item in raw.split(_BULLET)[1:]:
                out.append(_clause(item.strip(), lex))
    return out


def _clause(text: str, lex: Lexicon) -> Clause:
    bare = strip_parens(text)
    cond, sep, body = bare.partition(":")
    if not sep:
        cond, body = "", bare
    kind = classify(text, text, bare, cond.strip() if sep else None, body.strip(), lex)
    return Clause(text, bare, cond.strip(), body.strip(), kind)


def classify(raw: str, head: str, bare: str, cond: str | None, body: str, lex: Lexicon) -> str:
    """The kind of one clause (see the module docstring)."""
    if not bare or bare in (".", _BULLET):
        inner = strip_parens(raw.strip().removeprefix("(").removesuffix(".").removesuffix(")"))
        # A reminder in parentheses counts only as a replacement effect ("… instead.").
        return "continuous" if inner and lex.replacement.search(inner) else "note"
    if lex.meta.search(bare):
        return "note"
    if lex.restriction.search(bare):
        return "procedure"
    if lex.flip.search(bare):
        return "flip"
    if lex.quick.search(head):
        return "quick"
    if cond is not None:
        return _with_condition(cond, body, bare, lex)
    if ";" in bare:
        first = bare.split(";", 1)[0]
        if lex.either_turn.search(first):
            return "quick"
        lead = first.split(",", 1)[0]
        if lex.opens_condition.search(lead) and _is_event(lead, lex):
            return "trigger"
        return "ignition"
    return _statement(bare, lex)


def _with_condition(cond: str, body: str, bare: str, lex: Lexicon) -> str:
    rest = lex.once_per.sub("", cond).strip(" ,")
    if lex.either_turn.search(rest):
        return "quick"
    if not rest or lex.either_choice.search(rest) or lex.main_phase.search(rest):
        return "ignition"
    if lex.timing.search(rest) or _is_event(rest, lex):
        return "trigger"
    if lex.you_can.search(body) or ";" in body or lex.you_can.search(rest):
        return "ignition"
    return "continuous"


def _statement(bare: str, lex: Lexicon) -> str:
    """A sentence with no colon or semicolon: a procedure, an old-style effect or a statement."""
    if lex.tied.search(bare) and not lex.once_per.search(bare) and not _starts_equipped(bare):
        return "note"
    if lex.inherent.search(bare):
        lead = bare.split(",", 1)[0]
        if lex.opens_condition.search(lead) and _is_event(lead, lex):
            return "trigger"  # old wording: "When you take battle damage, you can Special Summon…"
        return "procedure"
    if lex.replacement.search(bare):
        return "continuous"
    lead, comma, rest = bare.partition(",")
    each_time = lead.lower().startswith(("each time", "cada vez que"))
    event = lex.timing.search(lead) or (lex.opens_condition.search(lead) and _is_event(lead, lex))
    if comma and not each_time and event and not lex.lasting.search(rest):
        return "trigger"
    if lex.you_can.search(bare):
        return "quick" if lex.either_turn.search(bare) else "ignition"
    if lex.cost_first.search(bare):
        return "ignition"  # old wording: "Send 1 card from your hand to the GY and select …"
    if lex.action_first.search(bare):
        return "action"  # an imperative (a Spell/Trap's effect on resolution): not lasting
    return "continuous"


def _starts_equipped(bare: str) -> bool:
    """'While equipped by this effect, …': a Union's continuous effect, not a qualifier."""
    return bare.lower().startswith(("while equipped", "enquanto equipad"))


def _is_event(condition: str, lex: Lexicon) -> bool:
    """Whether a condition names an event (a trigger) rather than a state (ignition)."""
    return bool(lex.event.search(condition))


def effect_types(found: list[Clause]) -> tuple[str, ...]:
    """The distinct effect types of the clauses, in order of first appearance."""
    out: list[str] = []
    for c in found:
        if c.kind in (*ACTIVATED, "continuous") and c.kind not in out:
            out.append(c.kind)
    return tuple(out)
