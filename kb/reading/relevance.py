"""Relevance before verdict: does a rule of the KB speak to what the question asks?

A question that names real cards is not thereby a ruling question ("Can Exodia play the piano?").
Two general checks, on words only:

- *off-topic words*: content words of the question that no rule text of the KB uses (documents,
  claim statements, concept names and definitions, the game's own words) — card names do not
  count as rule words. When they make up a good share of the question, it asks about something the
  rules do not speak of, whatever cards it names.
- *shared predicate*: a claim or passage decides only if it shares with the question something
  besides the card names: a concept the question names, or a content word's stem.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial

import Stemmer

from kb.cards.names import GAME_WORDS
from kb.formats import FormatSpec
from kb.graph import KnowledgeGraph
from kb.ids import fold
from kb.link import Mention, without_mentions
from kb.reading.language import LANGUAGES, language
from kb.search.analysis import STOP_WORDS, analyse

# The share of a question's content words that may be foreign to the rules.
OFF_TOPIC_SHARE = 0.25
_WORD = re.compile(r"[^\W\d_]{2,}")


# Informal function words of chat and forum questions (pt/en), which no rule text uses.
def _words(text: str) -> frozenset[str]:
    """A word list written as text, folded."""
    return frozenset(fold(w) for w in text.split())


CHAT_WORDS = _words(
    "pra pro pros pras ta tá tô to tao tão tbm tb msm vc vcs q pq hj eh né ne ai aí "
    "la lá cara gente mano tipo ate até so só mesmo ainda entao então agora depois antes "
    "minha minhas meu meus sua suas seu seus nossa nosso dele dela deles delas estou esta "
    "está estao estão sou foi fui era vai vou va vá fez faz fazer dar deu dei tenho tinha "
    "ter teve quero queria preciso acho sei sabe saber alguem alguém ninguem ninguém "
    "nada tudo algo coisa coisas vez vezes caso jeito forma modo "
    "opp opps pls plz thx ok okay yeah yep nope hey hi hello guys lol btw imo iirc afaik "
    "doesn don didn isn aren wasn weren won wouldn couldn shouldn can't cant dont doesnt "
    "im ive id youre theyre thats whats theres someone anyone anything something nothing "
    "nobody everyone everybody whoever whatever however anyway really actually just even "
    "still already yet again ever never always sometimes maybe perhaps please thanks "
    "mine yours theirs ours myself yourself themselves itself "
    "get got gets getting go goes going gone went come comes coming came make makes made "
    "take takes took taken give gives gave given put puts keep keeps let lets say says "
    "said know knows think thinks want wants need needs try tries use uses using "
    "happen happens happened happening way ways thing things question rule rules ruling "
    "rulings regra regras pergunta duvida dúvida "
    "proposito propósito purpose deliberately intentionally voluntarily accidentally "
    "drop drops dropping dropped "
    # playing a card in a deck, as players say it; ordinal endings ("3rd copy")
    "wanna gonna gotta running run runs ran deckbuilding deckbuild st nd rd th "
    # handling the cards, part of every duel, named by no rule text
    "shuffle shuffles shuffled shuffling embaralhar embaralha embaralho embaralhou embaralhado "
    "embaralhados juntos together "
    # the words of deck sizes (the manifest declares them)
    "minimo minima minimum maximum size tamanho fewer less exceed exceeds "
    # who says so: "my friend says …", "meu amigo disse …"
    "friend friends buddy pal mate told tells telling claim claims claimed insist insists "
    "argue argues argued arguing believe believes thought heard "
    "amigo amiga amigos amigas colega colegas disse diz dizem falou fala falaram acha acham "
    "achei achava ouvi "
    # how a duel's first player is chosen: part of every duel, named by no rule text
    "die dice roll rolled rolls coin toss tossed dado dados moeda sorteio"
)
# The monster types in Portuguese (card data gives the English ones): words of the game.
MONSTER_TYPES_PT = _words(
    "fada fadas dragão dragões mago magos guerreiro guerreiros besta bestas demônio demônios "
    "zumbi zumbis máquina máquinas aqua piro rocha rochas alada aladas planta plantas inseto "
    "insetos trovão dinossauro dinossauros peixe peixes serpente marinha réptil répteis "
    "psíquico psíquicos divina wyrm ciberso"
)
# Modal and auxiliary verbs and pronouns: every rule text uses them, so they neither make a
# question a ruling question nor show that a statement speaks to it.
FUNCTION_WORDS = _words(
    "pode podem posso podemos poderia poderiam poder consigo consegue conseguem conseguir "
    "deve devem devo deveria deveriam precisa precisam é são está estão há tem têm "
    "eu tu nós vocês ele ela isso aquilo aquele aquela lhe me te nos "
    "i me we us you he she him her they them may might must shall has have had having "
    "am been being there here what which who whom whose why how"
)
# Augmentative and diminutive endings ("deckzao", "cartinha"), folded.
_SIZED = re.compile(r"(?:zao|zona|zinho|zinha|zinhos|zinhas|inho|inha|inhos|inhas)$")
_SHORT_STEM = 4  # a stem shorter than this matches too many unrelated words ("casa" ~ "caso")
# A word sharing this many first letters with a rule word is an inflection of it when the stemmer
# cuts both shorter ("geraria" ~ "gerar", "reviving" ~ "revive").
_PREFIX = 5
# How players ask what rule texts phrase otherwise: the rule word each stands for.
_ASKED_AS = {
    fold(k): v
    for k, v in {
        "usable": "use",
        "useable": "use",
        "activatable": "activate",
        "playable": "play",
        "chainable": "chain",
        "negatable": "negate",
        "boost": "modify",
        "boosts": "modify",
        "pump": "modify",
        "summonable": "summon",
        "min": "minutos",
        "mins": "minutos",
        "seg": "segundos",
    }.items()
}


@dataclass(frozen=True)
class Reading:
    """What relevance sees in one question."""

    content: tuple[str, ...]  # content words outside the names it links (folded)
    off_topic: tuple[str, ...]  # those no rule text of the KB uses
    share: float  # off-topic words / all content words (names' words included)
    stems: frozenset[str]  # stems of the content words outside the names
    concepts: frozenset[str]  # the concepts (and formats) the question names
    parties: frozenset[str] = frozenset()  # those of them that name a party (the opponent)

    @property
    def off(self) -> bool:
        return bool(self.off_topic) and self.share >= OFF_TOPIC_SHARE


class Relevance:
    """The KB's rule vocabulary (stems), and the two checks over it."""

    def __init__(
        self,
        stems: frozenset[str],
        words: frozenset[str] = frozenset(),
        scope_concepts: frozenset[str] = frozenset(),
        name_words: Callable[[str], frozenset[str]] | None = None,
        party_concepts: frozenset[str] = frozenset(),
    ) -> None:
        self.stems = stems
        self.words = words
        self.prefixes = frozenset(w[:_PREFIX] for w in words if len(w) >= _PREFIX)
        # Short stems with the opening letters of the rule words that have them: "geraria" is
        # "gera" (stem "ger", same opening), "casa" is not "caso" (stem "cas", other opening).
        self.openings: dict[str, set[str]] = {}
        for w in words:
            for stem in analyse(w):
                if len(stem) < _SHORT_STEM:
                    self.openings.setdefault(stem, set()).add(w[:_SHORT_STEM])
        # English stems of the rule words: English questions inflect them ("reviving", "usable").
        self.en_stems = frozenset(_english().stemWords(sorted(words)))
        # Concepts that name a format (Tag Duel): they say where a question is asked, not what.
        self.scope_concepts = scope_concepts
        # The words of a named card's names: "Meltiel" after "Meltiel, Sage of the Sky" is a name.
        self.name_words = name_words or _no_words
        # Concepts naming a party (the opponent, the turn player): who acts, not what is asked.
        self.party_concepts = party_concepts

    @classmethod
    def of(cls, kg: KnowledgeGraph, formats: Iterable[FormatSpec] = ()) -> Relevance:
        return cls(
            rule_stems(kg),
            rule_words(kg) | monster_type_words(kg),
            format_concepts(kg, formats),
            partial(_name_words, kg),
            party_concepts(kg),
        )

    def known(self, word: str) -> bool:
        """A rule text uses the word: as written, in the singular, or by a stem long enough not
        to match unrelated words; or it is a rule word made bigger or smaller, as Brazilian
        players say ("deckzão", "monstrinho")."""
        base = _SIZED.sub("", word)
        if base != word and len(base) >= 3 and self.known(base):
            return True
        word = _ASKED_AS.get(word, word)
        if word in GAME_WORDS or word in self.words or word.rstrip("s") in self.words:
            return True
        if len(word) > _PREFIX and word[:_PREFIX] in self.prefixes:
            return True
        for stem in analyse(word):
            if len(stem) >= _SHORT_STEM and stem in self.stems:
                return True
            if word[:_SHORT_STEM] in self.openings.get(stem, ()):
                return True
        en = _english().stemWord(word)
        if len(en) >= _SHORT_STEM and en in self.en_stems:
            return True
        return self._by_lemma(word)

    @cached_property
    def _lemma_stems(self) -> frozenset[str]:
        """The stems of the rule words' lemmas, in the documents' language."""
        documents = language("pt")
        return frozenset(documents.stem(w) for w in self.words)

    def _by_lemma(self, word: str) -> bool:
        """A rule word in another inflection ("usou" for "usar"), or an English word whose
        Portuguese word (the language data's bridge) the rules use ("recognize", "reconhecer")."""
        for code in LANGUAGES:
            lang = language(code)
            stem = lang.shared_stem(word)
            # a word the bridge names is that word, however short its stem ("middle", "meio")
            bridged = lang.stem(word) in lang.bridge
            if (bridged or len(stem) >= _SHORT_STEM) and stem in self._lemma_stems:
                return True
        return False

    def read(self, text: str, mentions: list[Mention], asks_party: bool = False) -> Reading:
        """What the question names and says; `asks_party`: it asks who ("who …?", "how many
        cards does the first player have?" asks of one), so the parties it names are what it
        asks, not only who acts."""
        outside = without_mentions(text, mentions)
        content = _content(_WORD.findall(fold(outside)))
        names = {
            w for m in mentions if m.entity.startswith("card/") for w in self.name_words(m.entity)
        }
        content = [w for w in content if w not in names]
        grammar = _reader_words()
        off = tuple(w for w in content if w not in grammar and not self.known(w))
        stems = frozenset(s for w in content for s in analyse(_ASKED_AS.get(w, w)))
        concepts = frozenset(
            m.entity
            for m in mentions
            if not m.entity.startswith("card/") and m.entity not in self.scope_concepts
        )
        # A name counts once, however many words it has: a long card name does not hide the
        # words around it.
        # (A format's name says where the question is asked, not what: it does not count.)
        named = len(
            {
                m.entity
                for m in mentions
                if m.entity not in self.scope_concepts and not m.entity.startswith("format/")
            }
        )
        share = len(off) / max(len(content) + named, 1)
        parties = frozenset() if asks_party else concepts & self.party_concepts
        return Reading(tuple(content), off, round(share, 3), stems, concepts, parties)

    @staticmethod
    def shares_predicate(reading: Reading, texts: Iterable[str], entities: Iterable[str]) -> bool:
        """A statement speaks to the question: it names a concept the question names (other than
        its format or a party: "my opponent" and "seu adversário" say who, not what), or shares
        a content stem with it."""
        if (reading.concepts - reading.parties) & set(entities):
            return True
        stems = {s for t in texts if t for s in analyse(t)}
        return bool(reading.stems & stems)


def coverage(reading: Reading, texts: Iterable[str], entities: Iterable[str]) -> float:
    """The share of what the question asks (its concepts and content stems) a statement speaks
    of: a general rule answers a question about a particular card only when it covers most of it."""
    asked = set(reading.concepts) | set(reading.stems)
    if not asked:
        return 0.0
    said = set(entities) | {s for t in texts if t for s in analyse(t)}
    return len(asked & said) / len(asked)


def _rule_texts(kg: KnowledgeGraph) -> Iterator[str]:
    """Every rule text: passages, claim statements, concept and format names and definitions
    (card names are names, not rule words)."""
    for n in kg.nodes:
        if n.type == "Card":
            continue
        parts = [n.text, n.label_en, n.label_pt, *n.props.get("aliases", [])]
        parts += [n.props.get("definition_en"), n.props.get("definition_pt")]
        yield from (part for part in parts if part)


def rule_stems(kg: KnowledgeGraph) -> frozenset[str]:
    """The stems of every rule text and of the game's own words."""
    stems: set[str] = set()
    for part in _rule_texts(kg):
        stems.update(analyse(part))
    for word in GAME_WORDS | CHAT_WORDS:
        stems.update(analyse(word))
    return frozenset(stems)


def rule_words(kg: KnowledgeGraph) -> frozenset[str]:
    """Every folded word of the rule texts and the game's own words."""
    words: set[str] = set()
    for part in _rule_texts(kg):
        words.update(_WORD.findall(fold(part)))
    return frozenset(words | GAME_WORDS | CHAT_WORDS)


def monster_type_words(kg: KnowledgeGraph) -> frozenset[str]:
    """The monster types cards have ("Fairy", "Winged Beast"), singular and plural, in English
    (from card data) and Portuguese: words of the game, not of any rule text."""
    words: set[str] = set(MONSTER_TYPES_PT)
    for n in kg.of_type("Card"):
        race = n.props.get("race")
        if isinstance(race, str):
            for w in _WORD.findall(fold(race)):
                words.update({w, w + "s", w[:-1] + "ies" if w.endswith("y") else w + "es"})
    return frozenset(words)


def _no_words(entity: str) -> frozenset[str]:
    return frozenset()


def _name_words(kg: KnowledgeGraph, entity: str) -> frozenset[str]:
    """The words (of four letters or more) of an entity's English and Portuguese names."""
    node = kg.get(entity)
    if node is None:
        return frozenset()
    names = " ".join(x for x in (node.label_en, node.label_pt) if x)
    return frozenset(w for w in _WORD.findall(fold(names)) if len(w) >= _SHORT_STEM)


def party_concepts(kg: KnowledgeGraph) -> frozenset[str]:
    """The duelist's concept and every concept the graph puts under it (the opponent, the turn
    player, the owner …)."""
    parties = {"concept/duelist"}
    for node in kg.of_type("Concept"):
        seen: set[str] = set()
        at = node.id
        while at not in seen:
            seen.add(at)
            if at in parties:
                parties.add(node.id)
                break
            broader = kg.out(at, "broader")
            if not broader:
                break
            at = broader[0].object
    return frozenset(p for p in parties if kg.get(p) is not None)


def format_concepts(kg: KnowledgeGraph, formats: Iterable[FormatSpec]) -> frozenset[str]:
    """The concepts whose name is a format's label or alias (concept/tag-duel for Tag Duel)."""
    names = {
        fold(name) for spec in formats for name in (spec.label_en, spec.label_pt, *spec.aliases)
    }
    return frozenset(
        n.id
        for n in kg.of_type("Concept")
        if {fold(x) for x in (n.label_en, n.label_pt, *n.props.get("aliases", [])) if x} & names
    )


@lru_cache(maxsize=1)
@lru_cache(maxsize=1)
def _reader_words() -> frozenset[str]:
    """The words the reader's language data gives a role (modals, negators, connectives …, each
    word of their phrases): understood, so never off the rules' topic ("able", "against")."""
    out: set[str] = set()
    for code in LANGUAGES:
        lang = language(code)
        out |= lang.function_words
        for table in lang.modals.values():
            out.update(w for phrase in table for w in phrase)
        # numbers and ordinals: the reader counts and orders by them ("o terceiro duelista")
        out.update(lang.numbers, lang.ordinal_numbers, lang.multiplicative)
        for ends in lang.ordinals.values():
            out.update(w for phrase in ends for w in phrase)
    return frozenset(out)


def _english() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def _content(words: list[str]) -> list[str]:
    return [
        w for w in words if w not in STOP_WORDS and w not in CHAT_WORDS and w not in FUNCTION_WORDS
    ]


def card_topics(
    kg: KnowledgeGraph, cards: Iterable[str], formats: Iterable[FormatSpec] = ()
) -> tuple[str, str] | None:
    """(en, pt) of what the KB can answer about the named cards: what their facts decide."""
    parts_en: list[str] = []
    parts_pt: list[str] = []
    for card in dict.fromkeys(cards):
        node = kg.get(card)
        if node is None or node.type != "Card":
            continue
        en: list[str] = []
        pt: list[str] = []
        preds = {f.predicate for f in kg.out(card)}
        if "has_spell_speed" in preds or node.props.get("card_type") in ("spell", "trap"):
            en.append("what it can be chained to (its Spell Speed)")
            pt.append("a que pode ser encadeado (sua Velocidade de Magia)")
        if "summoned_by" in preds:
            en.append("whether its Special Summon can be negated and starts a Chain")
            pt.append("se sua Invocação-Especial pode ser negada e inicia Corrente")
        if "has_capability" in preds:
            en.append("what it negates")
            pt.append("o que ele nega")
        for spec in formats:
            if spec.card_pool and spec.card_pool in node.props:
                en.append(f"whether it is legal in {spec.label_en}")
                pt.append(f"se é permitido no {spec.label_pt}")
        if not en:
            continue
        parts_en.append(f"{node.label_en}: {', '.join(en)}")
        parts_pt.append(f"{node.label_pt or node.label_en}: {', '.join(pt)}")
    if not parts_en:
        return None
    return "; ".join(parts_en), "; ".join(parts_pt)
