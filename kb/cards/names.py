"""Finding the names of ~14,000 database cards in a text, fast, pt and en.

The curated cards, concepts and formats are matched by `kb.link.Linker`'s pattern. The card
database is too large for one regular expression, so its names are matched word by word: an index
from a name's first word to the names that start with it, longest first. A name that is also
ordinary words ("Reload", "Negate Attack", "Tributo") is *weak*: it is linked only where the text
quotes it or writes it capitalised as a name, so rule words in a question do not turn into cards.
Typos are caught by a fuzzy pass whose candidates share a word (or a word's first letters) with
the text, so it never scans every name.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

from rapidfuzz import fuzz, process

from kb.ids import fold
from kb.model import Mention, pickled_by_fields
from kb.search.analysis import STOP_WORDS

_WORD = re.compile(r"[a-z0-9]+")
# What may stand between two words of one name in a text: spaces, a hyphen, '&', an apostrophe …
_GAP = re.compile(r"[\s\-&',:!/\"“”]{1,4}|")
# Scripts whose names fold to nothing (or to a stray Latin letter): kept as aliases, not matched.
_NON_LATIN = re.compile(
    r"[\u0370-\u03ff\u0400-\u04ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef]"
)
_OPEN_QUOTES = "\"'“‘«"
_CLOSE_QUOTES = "\"'”’»"
_PREFIX = 4


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class _Name:
    words: tuple[str, ...]
    entity: str
    weak: bool

    @property
    def key(self) -> str:
        return " ".join(self.words)


class CardNames:
    """Word-indexed names of many cards; `find` returns their mentions in a folded text."""

    def __init__(
        self,
        names: Iterable[tuple[str, str]],
        common_words: frozenset[str],
        *,
        everyday: frozenset[str] = frozenset(),
        taken: frozenset[str] = frozenset(),
        min_fuzzy_len: int = 8,
    ) -> None:
        """`names`: (entity, folded surface) pairs; `everyday`: the everyday words among their
        words (`everyday_words`); `taken`: keys other entities already own."""
        # First word → second word (None: a one-word name) → names, longest first.
        self._first: dict[str, dict[str | None, list[_Name]]] = defaultdict(
            partial(defaultdict, list)
        )
        self._keys: dict[str, _Name] = {}
        self._by_entity: dict[str, list[str]] = defaultdict(list)
        for entity, surface in names:
            if _NON_LATIN.search(surface):
                continue
            words = tuple(_WORD.findall(surface))
            key = " ".join(words)
            if not words or len(key) < 3 or key in taken or key in self._keys:
                continue
            weak = _is_weak(words, common_words, everyday)
            name = _Name(words, entity, weak)
            self._keys[key] = name
            self._first[words[0]][words[1] if len(words) > 1 else None].append(name)
            self._by_entity[entity].append(key)
        for buckets in self._first.values():
            for bucket in buckets.values():
                bucket.sort(key=lambda n: -len(n.words))
        # Fuzzy candidates: strong names long enough, by each uncommon word and word prefix.
        self._fuzzy_index: dict[str, set[str]] = defaultdict(set)
        for key, name in self._keys.items():
            if name.weak or len(key) < min_fuzzy_len:
                continue
            for w in name.words:
                if w in common_words or len(w) < 3:
                    continue
                self._fuzzy_index[w].add(key)
                self._fuzzy_index[w[:_PREFIX]].add(key)
        self._common = common_words
        self.min_fuzzy_len = min_fuzzy_len

    def __len__(self) -> int:
        return len(self._keys)

    def keys_of(self, entity: str) -> list[str]:
        return self._by_entity.get(entity, [])

    def find(self, text: str, folded: str, offsets: list[int]) -> list[Mention]:
        """Exact mentions (longest name first, left to right) in `text`, whose folded form and
        offsets `kb.link.fold_with_offsets` gives."""
        words = list(_WORD.finditer(folded))
        out: list[Mention] = []
        i = 0
        while i < len(words):
            match = self._match_at(words, i, folded)
            if match is None:
                i += 1
                continue
            name, last = match
            start, end = offsets[words[i].start()], offsets[words[last].end() - 1] + 1
            if not name.weak or quoted(text, start, end) or _capitalised(text, start, end):
                out.append(Mention(name.entity, start, end, text[start:end], 1.0))
                i = last + 1
            else:
                i += 1
        return out

    def _match_at(
        self, words: list[re.Match[str]], i: int, folded: str
    ) -> tuple[_Name, int] | None:
        buckets = self._first.get(words[i].group(0))
        if buckets is None:
            return None
        second = words[i + 1].group(0) if i + 1 < len(words) else None
        for name in (*buckets.get(second, ()), *buckets.get(None, ())):
            n = len(name.words)
            if i + n > len(words):
                continue
            if all(words[i + j].group(0) == name.words[j] for j in range(1, n)) and all(
                _GAP.fullmatch(folded[words[j].end() : words[j + 1].start()])
                for j in range(i, i + n - 1)
            ):
                return name, i + n - 1
        return None

    def fuzzy(
        self, text: str, folded: str, offsets: list[int], covered: list[tuple[int, int]]
    ) -> list[Mention]:
        """Typo-tolerant mentions of strong names in words no other mention covers."""
        words = [
            w
            for w in _WORD.finditer(folded)
            if not any(a <= offsets[w.start()] < b for a, b in covered)
        ]
        found: list[Mention] = []
        taken: list[tuple[int, int]] = []
        for size in (6, 5, 4, 3, 2):
            for i in range(len(words) - size + 1):
                first, last = words[i], words[i + size - 1]
                if first.group(0) in self._common or last.group(0) in self._common:
                    continue
                if any(words[j + 1].start() - words[j].end() > 2 for j in range(i, i + size - 1)):
                    continue
                if any(first.start() < b and a < last.end() for a, b in taken):
                    continue
                window = " ".join(w.group(0) for w in words[i : i + size])
                if len(window) < self.min_fuzzy_len:
                    continue
                candidates: set[str] = set()
                for w in words[i : i + size]:
                    token = w.group(0)
                    if token not in self._common:
                        candidates |= self._fuzzy_index.get(token, set())
                        candidates |= self._fuzzy_index.get(token[:_PREFIX], set())
                if not candidates:
                    continue
                best = process.extractOne(
                    window, list(candidates), scorer=fuzz.ratio, score_cutoff=_cutoff(window)
                )
                if best is None:
                    continue
                start, end = offsets[first.start()], offsets[last.end() - 1] + 1
                entity = self._keys[best[0]].entity
                found.append(Mention(entity, start, end, text[start:end], round(best[1] / 100, 3)))
                taken.append((first.start(), last.end()))
        return found


# Words of questions and rules that card names also use ("Reload", "Call of the Haunted").
GAME_WORDS = frozenset(
    fold(w)
    for w in [
        "i",
        "me",
        "my",
        "you",
        "your",
        "we",
        "our",
        "he",
        "she",
        "it",
        "they",
        "yugioh",
        "ygo",
        "yu",
        "gi",
        "oh",
        "game",
        "games",
        "jogo",
        "jogos",
        "their",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "when",
        "where",
        "how",
        "why",
        "can",
        "could",
        "may",
        "might",
        "must",
        "should",
        "would",
        "will",
        "do",
        "does",
        "did",
        "is",
        "are",
        "be",
        "been",
        "was",
        "were",
        "has",
        "have",
        "had",
        "not",
        "no",
        "yes",
        "if",
        "then",
        "than",
        "so",
        "also",
        "only",
        "any",
        "all",
        "each",
        "every",
        "one",
        "two",
        "three",
        "first",
        "last",
        "next",
        "other",
        "another",
        "same",
        "more",
        "most",
        "own",
        "eu",
        "meu",
        "minha",
        "voce",
        "seu",
        "sua",
        "ele",
        "ela",
        "eles",
        "elas",
        "isso",
        "isto",
        "esse",
        "essa",
        "este",
        "esta",
        "que",
        "qual",
        "quem",
        "quando",
        "onde",
        "como",
        "porque",
        "pode",
        "posso",
        "podem",
        "deve",
        "devo",
        "sim",
        "nao",
        "se",
        "entao",
        "tambem",
        "so",
        "cada",
        "todo",
        "toda",
        "todos",
        "todas",
        "outro",
        "outra",
        "mesmo",
        "mesma",
        "mais",
        "primeiro",
        "ultimo",
        "card",
        "cards",
        "carta",
        "cartas",
        "monster",
        "monsters",
        "monstro",
        "monstros",
        "spell",
        "spells",
        "magia",
        "magias",
        "trap",
        "traps",
        "armadilha",
        "armadilhas",
        "effect",
        "effects",
        "efeito",
        "efeitos",
        "summon",
        "summons",
        "summoned",
        "invocar",
        "invocacao",
        "invocado",
        "special",
        "especial",
        "normal",
        "tribute",
        "tributo",
        "attack",
        "ataque",
        "attacks",
        "atacar",
        "defense",
        "defesa",
        "damage",
        "dano",
        "destroy",
        "destruir",
        "destruction",
        "destruicao",
        "negate",
        "negar",
        "negation",
        "negacao",
        "chain",
        "corrente",
        "activate",
        "ativar",
        "activation",
        "ativacao",
        "draw",
        "comprar",
        "hand",
        "mao",
        "deck",
        "graveyard",
        "cemiterio",
        "field",
        "campo",
        "turn",
        "turno",
        "phase",
        "fase",
        "battle",
        "batalha",
        "life",
        "lp",
        "pv",
        "points",
        "pontos",
        "vida",
        "cost",
        "custo",
        "target",
        "alvo",
        "player",
        "duelist",
        "jogador",
        "duelista",
        "opponent",
        "oponente",
        "banish",
        "banir",
        "remove",
        "remover",
        "return",
        "devolver",
        "equip",
        "equipar",
        "set",
        "baixar",
        "face",
        "up",
        "down",
        "cima",
        "baixo",
        "zone",
        "zona",
        "change",
        "mudar",
        "reborn",
    ]
)


def common_words(surfaces: Iterable[str], texts: Iterable[str] = ()) -> frozenset[str]:
    """Stop words, game words, every word of the given surfaces (concept and format names) and
    the lower-case words of `texts` (the documents: words they use as words, not as names)."""
    words = set(STOP_WORDS) | GAME_WORDS
    for surface in surfaces:
        words.update(_WORD.findall(fold(surface)))
    for text in texts:
        words.update(_WORD.findall(fold(" ".join(re.findall(r"\b[^\W\d_A-Z][\w]*", text)))))
    return frozenset(words)


def _is_weak(words: tuple[str, ...], common: frozenset[str], everyday: frozenset[str]) -> bool:
    """A name made of ordinary words, or one short word, or one word that is an everyday word of
    English or Portuguese ("Storm", "Reinforcements"), must be quoted or capitalised."""
    if all(w in common or w.isdigit() for w in words):
        return True
    return len(words) == 1 and (len(words[0]) < 7 or words[0] in everyday)


# How often a word must occur in everyday English or Portuguese (wordfreq's Zipf scale: 3 is
# about once per million words) to be a word first and a card name second.
EVERYDAY_ZIPF = 3.0


def name_words(surfaces: Iterable[str]) -> set[str]:
    """The words of (folded) surfaces, as names are matched word by word."""
    return {w for surface in surfaces for w in _WORD.findall(surface)}


def everyday_words(words: Iterable[str]) -> frozenset[str]:
    """The (folded) words among `words` that are everyday English or Portuguese words: "storm",
    "mountain", "tempestade", but not "jinzo", "raigeki" or "sangan".

    wordfreq's tables take ~0.4 s and tens of MB to load, so a build works this out once for its
    names (the artifact's `everyday_words`) and a server reads it from there."""
    from wordfreq import zipf_frequency

    return frozenset(
        w
        for w in set(words)
        if any(zipf_frequency(w, lang) >= EVERYDAY_ZIPF for lang in ("en", "pt"))
    )


def _cutoff(window: str) -> float:
    """~1 edit per 10 characters, never below 88% (many names: stricter than the core linker)."""
    return max(88.0, 100.0 - 100.0 * (1 + len(window) // 10) / max(len(window), 1))


def quoted(text: str, start: int, end: int) -> bool:
    before = text[:start].rstrip()[-1:]
    after = text[end:].lstrip()[:1]
    return bool(before) and before in _OPEN_QUOTES and bool(after) and after in _CLOSE_QUOTES


def _capitalised(text: str, start: int, end: int) -> bool:
    """Every word of four letters or more starts with a capital, and it is not the text's first."""
    words = re.findall(r"\w+", text[start:end])
    long = [w for w in words if len(w) >= 4 or len(words) == 1]
    if not long or not all(w[0].isupper() for w in long):
        return False
    # A sentence's first word is capitalised anyway: one such word is not a name.
    head = text[:start].rstrip()
    return len(words) > 1 or not (head == "" or head[-1] in ".!?:¿¡")
