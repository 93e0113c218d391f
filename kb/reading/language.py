"""Per-language data the reader needs (kb/reading/lang/<code>.yaml), loaded once.

The files hold words, not rules: negators, modal verbs by modality, subordinators by kind,
actor words by role, question words by the kind of answer, number words and stop words. Words
are folded (lowercase, no accents); a multi-word entry is matched as a run of tokens.
Inflections are left to the Snowball stemmer of the language (the one the search index uses).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import simplemma
import Stemmer
import yaml
from simplemma.strategies import DefaultStrategy, DictionaryFactory

from kb.ids import fold

LANG_DIR = Path(__file__).resolve().parent / "lang"
LANGUAGES = ("pt", "en")

Phrase = tuple[str, ...]


def _phrases(words: list[str] | None) -> frozenset[Phrase]:
    return frozenset(tuple(fold(str(w)).split()) for w in words or ())


def _grouped(table: dict[str, list[str]] | None) -> dict[str, frozenset[Phrase]]:
    return {k: _phrases(v) for k, v in (table or {}).items()}


@dataclass(frozen=True, eq=False)
class Language:
    """The words of one language, as phrases of folded tokens."""

    code: str
    negators: frozenset[Phrase]
    not_negating: frozenset[Phrase]
    deniers: frozenset[Phrase]
    privatives: frozenset[Phrase]
    concord: frozenset[Phrase]  # negators that agree with a privative before them ("sem nenhum")
    modals: dict[str, frozenset[Phrase]]
    auxiliaries: frozenset[Phrase]
    passive: frozenset[Phrase]
    subordinators: dict[str, frozenset[Phrase]]
    resumers: frozenset[Phrase]
    contrast_after_cut: frozenset[Phrase]  # "X, enquanto Y": whereas, after a main clause's comma
    comparison_after_cut: frozenset[Phrase]  # "X, como Y": what X is compared with, after a comma
    target_prepositions: frozenset[Phrase]
    agent_prepositions: frozenset[Phrase]
    setting_prepositions: frozenset[Phrase]  # "No Edison, …": where or when, never the subject
    possessives: frozenset[str]  # "my", "meu": whose a thing is
    heads: frozenset[str]  # "card" after a kind named ("a Spell Speed 3 card that …"): the kind
    conjunctions: frozenset[Phrase]
    coordinators: frozenset[Phrase]  # ", e retornam": a conjunction opening a second predicate
    finite_endings: tuple[str, ...]  # endings of a finite verb ("retornam"): a predicate starts
    actors: dict[str, frozenset[Phrase]]
    question_words: dict[str, frozenset[Phrase]]
    confirmations: frozenset[Phrase]
    reporting: frozenset[Phrase]  # verbs reporting what someone says ("diz que", "swears")
    alternative: frozenset[Phrase]
    more_than: frozenset[Phrase]
    at_most: frozenset[Phrase]
    several: frozenset[Phrase]
    any_number: frozenset[Phrase]  # "qualquer número de": as many as one likes
    times: frozenset[Phrase]  # "vez", "times": a number before it counts how often
    multiplicative: dict[str, int]  # "twice": a number of times in one word
    at_once: frozenset[Phrase]  # "de uma vez", "at once": a number in it counts nothing
    per_instance: frozenset[Phrase]  # "por vez", "at a time": the article before counts
    anaphors: frozenset[Phrase]  # "eles", "they" opening a sentence: what the one before was about
    object_pronouns: frozenset[Phrase]  # "them" asked of: what the clause before was about
    abbreviations: tuple[str, ...]  # "e.g.", "etc.": their dots end no sentence
    # sets of terms excluding each other, by the set's id (the same ids in every language):
    # "same" / "different", "face-up" / "face-down", the colours of a card's frame
    exclusive_terms: dict[str, tuple[frozenset[Phrase], ...]]
    another: frozenset[Phrase]  # "another copy": one more, so at least two
    distributive: frozenset[Phrase]  # "each", "both": before `own`, one for every party
    own: frozenset[Phrase]  # "their own X" after a distributive: two or more X at once
    ordinals: dict[str, frozenset[Phrase]]
    numbers: dict[str, int]
    contractions: dict[str, str]
    partitives: frozenset[Phrase]  # "one *of* my monsters": what is counted comes after it
    discourse: frozenset[Phrase]  # phrases holding a label word that label nothing ("por exemplo")
    labels: frozenset[Phrase]  # words a number names rather than counts ("Example 3", "Rule 12")
    adjective_endings: tuple[str, ...]  # "different", "mandatory": not what a phrase is about
    ordinal_numbers: dict[str, int]  # "terceira" 3 (the first is an end of an order, not here)
    ordinal_suffixes: frozenset[str]  # after digits, as written (not folded): "3ª", "3rd"
    indefinite: frozenset[Phrase]  # "a second copy" adds one: the ordinal counts
    sequence: dict[str, frozenset[Phrase]]  # words opening an order's first, next and last step
    relative_time: dict[str, frozenset[Phrase]]  # "before"/"after" words placing one thing
    stopwords: frozenset[str]
    stemmer_name: str
    lemmatizer: str | None  # simplemma's language code: words are lemmatized before stemming
    # this language's stems → the Portuguese stem of the same word ("card" → "cart")
    bridge: dict[str, str]

    def stem(self, word: str) -> str:
        """The stem of the word's lemma (inflections of one verb share it: "usa", "usado" and
        "usam" all stem as "usar" does), where the language data names a lemmatizer."""
        if word in self.function_words:
            return _stem_of(word, self.stemmer_name, None)  # ("a", "no": no lemma of their own)
        return _stem_of(word, self.stemmer_name, self.lemmatizer)

    def shared_stem(self, word: str) -> str:
        """The word's stem, in the documents' language where the language data bridges it
        ("cards" → "cart"): what a proposition's stems are compared by."""
        stem = self.stem(word)
        return self.bridge.get(stem, stem)

    @property
    def function_words(self) -> frozenset[str]:
        """Single words that carry no content: stop words and every listed grammatical word."""
        return _function_words(self)


@cache
def _stemmer(name: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(name)


_lemmatizer_in_use: simplemma.Lemmatizer | None = None  # None: simplemma's own dictionaries


def use_lemma_dictionaries(factory: DictionaryFactory) -> None:
    """Read lemmas from `factory`'s dictionaries (the same pairs as simplemma's, e.g. the mapped
    tables of kb.adapters.lemma_table) from now on, in this process."""
    global _lemmatizer_in_use
    strategy = DefaultStrategy(dictionary_factory=factory)
    _lemmatizer_in_use = simplemma.Lemmatizer(lemmatization_strategy=strategy)


def _lemma(word: str, lang: str) -> str:
    if _lemmatizer_in_use is None:
        return simplemma.lemmatize(word, lang=lang)
    return _lemmatizer_in_use.lemmatize(word, lang=lang)


@lru_cache(maxsize=65536)
def _stem_of(word: str, stemmer: str, lemmatizer: str | None) -> str:
    if lemmatizer is not None:
        word = fold(_lemma(word, lemmatizer))
    return _stemmer(stemmer).stemWord(word)


@cache
def _function_words(lang: Language) -> frozenset[str]:
    groups: list[frozenset[Phrase]] = [
        lang.negators,
        lang.deniers,
        lang.privatives,
        lang.auxiliaries,
        lang.passive,
        lang.resumers,
        lang.target_prepositions,
        lang.agent_prepositions,
        lang.confirmations,
        lang.alternative,
        *lang.modals.values(),
        *lang.subordinators.values(),
        *lang.question_words.values(),
    ]
    single = {p[0] for g in groups for p in g if len(p) == 1}
    return frozenset(single | lang.stopwords)


@cache
def language(code: str) -> Language:
    """The data of language `code` ('pt' or 'en')."""
    if code not in LANGUAGES:
        raise ValueError(f"no reader data for language {code!r}; known: {', '.join(LANGUAGES)}")
    # every scalar a string: "no", "on" and "yes" are words here, not booleans
    raw = yaml.load(
        (LANG_DIR / f"{code}.yaml").read_text(encoding="utf-8"),
        Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader),
    )
    return Language(
        code=code,
        negators=_phrases(raw.get("negators")),
        not_negating=_phrases(raw.get("not_negating")),
        deniers=_phrases(raw.get("deniers")),
        privatives=_phrases(raw.get("privatives")),
        concord=_phrases(raw.get("concord")),
        modals=_grouped(raw.get("modals")),
        auxiliaries=_phrases(raw.get("auxiliaries")),
        passive=_phrases(raw.get("passive")),
        subordinators=_grouped(raw.get("subordinators")),
        resumers=_phrases(raw.get("resumers")),
        contrast_after_cut=_phrases(raw.get("contrast_after_cut")),
        comparison_after_cut=_phrases(raw.get("comparison_after_cut")),
        target_prepositions=_phrases(raw.get("target_prepositions")),
        agent_prepositions=_phrases(raw.get("agent_prepositions")),
        setting_prepositions=_phrases(raw.get("setting_prepositions")),
        possessives=frozenset(fold(str(w)) for w in raw.get("possessives") or ()),
        heads=frozenset(fold(str(w)) for w in raw.get("heads") or ()),
        conjunctions=_phrases(raw.get("conjunctions")),
        coordinators=_phrases(raw.get("coordinators")),
        finite_endings=tuple(fold(str(w)) for w in raw.get("finite_endings") or ()),
        actors=_grouped(raw.get("actors")),
        question_words=_grouped(raw.get("question_words")),
        confirmations=_phrases(raw.get("confirmations")),
        reporting=_phrases(raw.get("reporting")),
        alternative=_phrases(raw.get("alternative")),
        more_than=_phrases(raw.get("more_than")),
        at_most=_phrases(raw.get("at_most")),
        several=_phrases(raw.get("several")),
        any_number=_phrases(raw.get("any_number")),
        times=_phrases(raw.get("times")),
        multiplicative={fold(str(k)): int(v) for k, v in (raw.get("multiplicative") or {}).items()},
        at_once=_phrases(raw.get("at_once")),
        per_instance=_phrases(raw.get("per_instance")),
        anaphors=_phrases(raw.get("anaphors")),
        object_pronouns=_phrases(raw.get("object_pronouns")),
        abbreviations=tuple(str(a).lower() for a in raw.get("abbreviations") or ()),
        exclusive_terms={
            str(k): tuple(_phrases(side) for side in sides)
            for k, sides in (raw.get("exclusive_terms") or {}).items()
        },
        another=_phrases(raw.get("another")),
        distributive=_phrases(raw.get("distributive")),
        own=_phrases(raw.get("own")),
        ordinals=_grouped(raw.get("ordinals")),
        numbers={fold(str(k)): int(v) for k, v in (raw.get("numbers") or {}).items()},
        contractions={str(k): str(v) for k, v in (raw.get("contractions") or {}).items()},
        partitives=_phrases(raw.get("partitives")),
        labels=_phrases(raw.get("labels")),
        discourse=_phrases(raw.get("discourse")),
        adjective_endings=tuple(fold(str(w)) for w in raw.get("adjective_endings") or ()),
        ordinal_numbers={
            fold(str(k)): int(v) for k, v in (raw.get("ordinal_numbers") or {}).items()
        },
        ordinal_suffixes=frozenset(str(w).lower() for w in raw.get("ordinal_suffixes") or ()),
        indefinite=_phrases(raw.get("indefinite")),
        sequence=_grouped(raw.get("sequence")),
        relative_time=_grouped(raw.get("relative_time")),
        stopwords=frozenset(fold(str(w)) for w in raw.get("stopwords") or ()),
        stemmer_name=str(raw.get("stemmer") or "porter"),
        lemmatizer=_lemmatizer(raw),
        bridge=_bridge(raw),
    )


def _bridge(raw: dict[str, object]) -> dict[str, str]:
    """The language's stems → the stems of the same words in `bridge_language` (its words)."""
    table = raw.get("bridge") or {}
    if not isinstance(table, dict) or not table:
        return {}
    own = str(raw.get("stemmer") or "porter")
    target = language(str(raw["bridge_language"]))
    return {
        _stem_of(fold(str(k)), own, _lemmatizer(raw)): target.stem(fold(str(v)))
        for k, v in table.items()
    }


def _lemmatizer(raw: dict[str, object]) -> str | None:
    """The simplemma language code the language data names (`lemmatize`), if any."""
    return str(raw["lemmatize"]) if raw.get("lemmatize") else None


def guess_language(words: list[str]) -> str:
    """'pt' or 'en': the language whose function words the folded `words` use more."""
    pt, en = language("pt").function_words, language("en").function_words
    score_pt = sum(w in pt for w in words)
    score_en = sum(w in en for w in words)
    return "en" if score_en > score_pt else "pt"
