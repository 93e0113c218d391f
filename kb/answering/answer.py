"""Answering a ruling question: link, detect format and language, reason, retrieve, cite."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kb.answering import calibration
from kb.answering.calibration import Calibration
from kb.answering.claims import ClaimMatch, ClaimReader, ClaimSettings
from kb.answering.definition import definition_decision
from kb.answering.illustrated import illustrated_rule, with_illustrated_rules
from kb.answering.suggest import respan
from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.ids import concept_id, fold
from kb.model import Span
from kb.reading import QuestionReading, read_sentence
from kb.reading import read_question as read_proposition
from kb.reading.clauses import (
    Clause,
    asked_unit,
    best_clause,
    contradicts,
    counts_asked,
    counts_differ,
    existence_asked,
    question_negated,
    same_counts,
    stated_amount,
    states_amount,
)
from kb.reading.question import Question, read_question, why_not_as_yes_no
from kb.reading.relevance import Reading, Relevance, card_topics, coverage
from kb.reading.scope import Vocabulary, uncovered_topic
from kb.reason import Decision, Step, Value
from kb.reason.facts import CLASS_PREDICATES, EVERY_MONSTER, card_classes, spell_speed
from kb.reason.order import OrderMatcher, OrderSettings
from kb.reason.registry import enabled
from kb.reason.statement_match import StatementMatcher, StatementSettings, amount_decision
from kb.search.analysis import analyse
from kb.search.index import Hit, SearchIndex, SearchOptions

MIN_SUPPORT = 0.80  # below this alignment score nothing in the KB decides the question
MIN_DENSE = 0.82  # cosine of the best hit under which the question is out of scope
# A sentence of a document without curated claims decides over another document's claim when it
# aligns at least this much better with the question (claims were written for some documents
# only: a document without them must still be able to answer). A document with claims speaks
# through them.
PASSAGE_OVER_CLAIM = 0.0
# Claims aligning within this of the best are tied: the one that speaks of the named cards and of
# what is asked goes first (the order inside a tie follows the embedding's rounding: int8 and
# float32 order them differently).
TIE_MARGIN = 0.015
# How far down the claims a question asking an amount looks for one stating it.
VALUE_DEPTH = 40
# The share of a question's concepts and content stems a general rule must cover to decide about
# a particular card it does not name.
GENERAL_COVERAGE = 0.5


_SPEED = concept_id("spell-speed-")
_CARD_KINDS = frozenset(concept_id(k) for k in ("monster-card", "spell-card", "trap-card"))


def _other_kind(kg: KnowledgeGraph, concerns: set[str], cards: list[str]) -> bool:
    """A rule about one kind of card (monsters) does not speak of cards of another kind only (a
    Trap Card): every named card has a kind, none of them the rule's. Nor does a rule about a
    Spell Speed (2 "or higher") speak of cards that are all slower (a monster whose effects are
    Spell Speed 1)."""
    if cards and (rule_speeds := [int(c[-1]) for c in concerns if c.startswith(_SPEED)]):
        speeds = [spell_speed(kg, card) for card in cards]
        if all(speeds) and max(s[0] for s in speeds if s) < min(rule_speeds):
            return True
    kinds = concerns & _CARD_KINDS
    if not kinds or not cards:
        return False
    for card in cards:
        classes = {f.object for f in kg.out(card, "instance_of")}
        own = classes & _CARD_KINDS
        if concept_id("trap-monster") in classes:  # a Trap Card that is also a monster
            own.add(concept_id("monster-card"))
        if not own or own & kinds:
            return False
    return True


def _not_covered(topic_en: str, topic_pt: str) -> Decision:
    return Decision(
        verdict=None,
        steps=[],
        summary_en=f"No ruling found in the knowledge base: its rule documents do not cover {topic_en}.",
        summary_pt=f"Nenhuma regra encontrada na base de conhecimento: seus documentos de regras "
        f"não tratam de {topic_pt}.",
        confidence=None,
        reasoner="none",
    )


# (question, spans already linked to a card or format) -> the `suggestions` of the answer
Suggest = Callable[[str, list[tuple[int, int]]], list[dict[str, Any]]]


class Answerer:
    """Composes reasoners, claims and retrieval into the /ask contract."""

    def __init__(
        self,
        kg: KnowledgeGraph,
        index: SearchIndex,
        documents: dict[str, str],
        formats: Formats | None = None,
        statement_settings: StatementSettings | None = None,
        claim_settings: ClaimSettings | None = None,
        suggest: Suggest | None = None,
        order_settings: OrderSettings | None = None,
    ) -> None:
        self.kg = kg
        # "Did you mean": the cards an answer without a ruling suggests (kb.answering.suggest
        # over the card index; the service gives it, and none without it)
        self.suggest = suggest
        self.index = index
        self.documents = documents
        self.formats = formats if formats is not None else Formats.of_nodes(kg.of_type("Format"))
        self.claims = ClaimReader(kg, index, self.formats, claim_settings)
        self.vocabulary = Vocabulary.of(kg, self.formats)
        self.relevance = Relevance.of(kg, self.formats.specs)
        # Measured confidence per reasoner (None: reasoners' raw values, as bench.calibrate asks),
        # fitted with curated claims or on the documents alone, as this graph is.
        curated = bool(kg.of_type("Claim"))
        self.calibration: Calibration | None = calibration.load(calibration.table_for(curated))
        self.reasoners = enabled(kg)
        self.statements = StatementMatcher(kg, index, self.formats.base, statement_settings)
        self.orders = OrderMatcher(kg, order_settings)
        # the last question read by kb.reading: one attribute, replaced whole (threads share it)
        self._typed_last: tuple[tuple[object, ...], QuestionReading] | None = None
        self.claimed_documents = frozenset(
            n.span.document for n in kg.of_type("Claim") if n.span is not None
        )
        # What singles cards out: a card, or a class some card belongs to. A rule concerning none
        # of these (attacking with a teammate's monster, 0-ATK battles) speaks of every card.
        self.card_classes = frozenset(
            f.object
            for p in CLASS_PREDICATES
            for f in kg.with_predicate(p)
            if f.subject.startswith("card/") and f.object not in EVERY_MONSTER
        )

    def read(self, text: str, fmt: str | None) -> Question:
        return read_question(text, fmt, self.index.linker, self.formats)

    def answer(self, text: str, fmt: str | None, k: int) -> dict[str, Any]:
        presupposed = why_not_as_yes_no(text)
        if presupposed is not None:
            # "Why can't I X?": decided as "Can I X?", the reasoning is the why
            answered = self.answer(presupposed, fmt, k)
            return {
                **answered,
                "question": text,
                "suggestions": respan(answered["suggestions"], text),
            }
        q = self.read(text, fmt)
        hits = self.index.search(text, SearchOptions(k=max(k, 8), format=q.format), q.mentions)
        own = q.format is not None and q.format != self.formats.base
        topic = uncovered_topic(text, own) or self._uncovered_format(q)
        if topic is not None:
            return self._compose(q, _not_covered(*topic), hits, k)
        unclear = self._not_understood(q) or self._newer_mechanic(q)
        if unclear is not None:
            return self._compose(q, unclear, hits, k)
        # a question that is not yes/no may ask for a party ("who …?"): then parties are asked
        reading = self.relevance.read(q.text, q.mentions, asks_party=not q.yes_no)
        if reading.off:
            return self._compose(q, self._off_topic(q, reading), hits, k)
        if q.yes_no and not reading.content and len({m.entity for m in q.mentions}) < 2:
            return self._compose(q, self._asks_nothing(q), hits, k)
        decision = (
            self._reason(q)
            if q.yes_no
            else self._reason(q, ("card-pool", "card-limit", "deck-size", "chain-order"))
        )
        if decision is None and q.yes_no:  # "X before Y?": the orders the documents tell
            decision = self.orders.decide(self._typed(q).order, q.format, self.formats.base)
        if decision is None:  # "What is X?": the passage defining X
            decision = definition_decision(self.kg, self.index.linker, q, self.formats.base)
        if decision is None and not self._unknown(q):
            decision = self._claim_or_passage(q, hits, reading)
        if decision is None:
            clause = self._clause(q, hits)
            if self._names_database_card(q) and (
                clause is None or not self._speaks_of_cards(clause, q, reading)
            ):
                # a rule about a class of the card (matched by role) decides for it
                decision = self._statement_match(q, of_cards=True) or self._card_beyond_rules(q)
            else:
                decision = self._from_statements(q, clause, hits, reading)
                if decision.reasoner == "none" and q.yes_no and self._in_scope(hits):
                    # what no passage decided by its wording: the statements, matched by role
                    decision = self._statement_match(q) or decision
        decision = with_illustrated_rules(self.kg, decision, hits, self._citable)
        return self._compose(q, decision, hits, k)

    def _another_case(self, typed: QuestionReading, statement: str) -> bool:
        """The claim statement, read by kb.reading, is about another case than the question."""
        reading = read_sentence(statement, self.index.linker.link(statement))
        return self.statements.another_case(typed, reading.propositions)

    def _typed(self, q: Question) -> QuestionReading:
        """The question read by kb.reading (once per question: the reading is cached)."""
        key = (q.text, tuple((m.entity, m.start, m.end) for m in q.mentions))
        last = self._typed_last
        if last is not None and last[0] == key:
            return last[1]
        # the reader tells the language by the question's own function words
        reading = read_proposition(q.text, q.mentions)
        self._typed_last = (key, reading)
        return reading

    def _statement_match(self, q: Question, of_cards: bool = False) -> Decision | None:
        """The documents' statements, matched by role (kb.reason.statement_match); `of_cards`:
        only a statement naming a card of the question or a class of one decides."""
        if self._unknown(q):
            return None
        reading = self._typed(q)
        qvec = self.index._query_vec(q.text) if self.index.embedder is not None else None
        cards = frozenset(m.entity for m in q.mentions if m.entity.startswith("card/"))
        return self.statements.decide(reading, q.format, qvec, cards if of_cards else frozenset())

    def _names_database_card(self, q: Question) -> bool:
        """The question names a card only the card database knows (no document, claim or curated
        entry speaks of it)."""
        for m in q.mentions:
            node = self.kg.get(m.entity)
            if node is not None and node.type == "Card" and node.props.get("origin") == "carddb":
                return True
        return False

    def _card_beyond_rules(self, q: Question) -> Decision:
        """A card the documents never name, asked about beyond what its card facts and the typed
        rules decide: what its own text does is not in the KB (card texts are not kept)."""
        cards = [m.entity for m in q.mentions if m.entity.startswith("card/")]
        topics = card_topics(self.kg, cards, self.formats.specs)
        names_en = ", ".join(dict.fromkeys(self.kg.node(c).label_en or c for c in cards))
        names_pt = ", ".join(
            dict.fromkeys(self.kg.node(c).label_pt or self.kg.node(c).label_en or c for c in cards)
        )
        en = (
            f"No ruling found: the rule documents do not speak of {names_en}, and what a card's "
            "own text does is not in the knowledge base."
        )
        pt = (
            f"Nenhuma regra encontrada: os documentos de regras não tratam de {names_pt}, e o que "
            "o texto do próprio card faz não está na base de conhecimento."
        )
        if topics is not None:
            en += f" About the cards named, it can answer: {topics[0]}."
            pt += f" Sobre os cards citados, ela responde: {topics[1]}."
        return Decision(None, [], en, pt, None, reasoner="none")

    def _off_topic(self, q: Question, reading: Reading) -> Decision:
        """No rule speaks of what is asked: no verdict, and what the KB can say instead."""
        words = ", ".join(f"“{w}”" for w in dict.fromkeys(reading.off_topic[:4]))
        cards = [m.entity for m in q.mentions if m.entity.startswith("card/")]
        topics = card_topics(self.kg, cards, self.formats.specs)
        en = f"No ruling found: the rules do not speak of {words}."
        pt = f"Nenhuma regra encontrada: as regras não tratam de {words}."
        if topics is not None:
            en += f" About the cards named, the knowledge base can answer: {topics[0]}."
            pt += f" Sobre os cards citados, a base de conhecimento responde: {topics[1]}."
        return Decision(None, [], en, pt, None, reasoner="none")

    def _asks_nothing(self, q: Question) -> Decision:
        """A name, maybe repeated, and nothing said about it: there is no question to decide."""
        names = [m.entity for m in q.mentions]
        what_en = self.kg.node(names[0]).label_en if names and names[0] in self.kg else None
        what_pt = self.kg.node(names[0]).label_pt if names and names[0] in self.kg else None
        en = "No ruling found: the question does not say what it asks"
        pt = "Nenhuma regra encontrada: a pergunta não diz o que pergunta"
        if what_en:
            en += f" about {what_en}"
            pt += f" sobre {what_pt or what_en}"
        topics = card_topics(
            self.kg, [n for n in names if n.startswith("card/")], self.formats.specs
        )
        en, pt = en + ".", pt + "."
        if topics is not None:
            en += f" About the cards named, the knowledge base can answer: {topics[0]}."
            pt += f" Sobre os cards citados, a base de conhecimento responde: {topics[1]}."
        return Decision(None, [], en, pt, None, reasoner="none")

    def _uncovered_format(self, q: Question) -> tuple[str, str] | None:
        """A format the manifest declares but no document defines: its rules are not covered."""
        spec = self.formats.get(q.format)
        if spec is None or spec.covered:
            return None
        return f"{spec.label_en} rules", f"regras de {spec.label_pt}"

    def _reason(self, q: Question, only: tuple[str, ...] | None = None) -> Decision | None:
        for reasoner in self.reasoners:
            if only is not None and reasoner.name not in only:
                continue
            decision = reasoner.decide(self, q)
            if decision is not None:
                return decision
        return None

    def _clause(self, q: Question, hits: list[Hit]) -> Clause | None:
        base = self.formats.base
        scoped = [h for h in hits if q.format is None or h.format in (q.format, base)]
        return best_clause(self.index, q.text, q.entities, scoped) if scoped else None

    def _claim_or_passage(self, q: Question, hits: list[Hit], reading: Reading) -> Decision | None:
        """The best-aligned claim decides when it aligns closely, unless a passage of another
        document aligns better: then that passage decides (a document without claims answers).
        A claim that shares nothing with the question but its card names does not decide."""
        cards = [m.entity for m in q.mentions if m.entity.startswith("card/")]
        unit = None if q.yes_no else asked_unit(q.folded)  # "quantos pontos de vida" → lp
        depth = VALUE_DEPTH if unit else 12
        ranked = self.claims.rank(q.text, q.mentions, q.format, depth=depth, lang=q.lang)
        # a claim whose sentence gives a card of the question another role (what is responded
        # to, not what responds) is about another case: swapped roles never decide
        typed = self._typed(q)
        if typed.asking is not None:
            ranked = [
                m
                for m in ranked
                if m.node.span is None or not self.statements.swaps_roles(typed, m.node.span)
            ]
            # nor does a claim that would say yes about another amount, kind or end of an order
            # ("resolves from the last activated" to "does the first activated resolve first?")
            while ranked and ranked[0].verdict and self._another_case(typed, ranked[0].statement):
                ranked = ranked[1:]
        # The best claim must speak to the question; a lower one does not take its place unless
        # the two align alike (within TIE_MARGIN: the order between them is the embedding's noise)
        # and every word of the question is one the rules use. Of tied claims that speak, one
        # giving the very number asked ("four copies?" against "… can have four copies") decides.
        if ranked:
            margin = 0.0 if reading.off_topic else TIE_MARGIN
            tied = [
                i
                for i, m in enumerate(ranked)
                if m.score >= ranked[0].score - margin and self._claim_speaks(m, q, reading, cards)
            ]
            if not tied:
                return None
            fit = next((i for i in tied if same_counts(q.text, ranked[i].statement)), None)
            if unit is not None:
                fit = self._stating(ranked, unit, q, reading, cards)
            if fit is None and counts_differ(q.text, ranked[tied[0]].statement):
                fit = self._number_asked(ranked, q, reading, cards)
            if fit is None:
                # Of tied claims, one stating a number of what is counted speaks to it ("a
                # single Deck?" against "… a team has 2 Decks"), where another does not.
                fit = next((i for i in tied if counts_asked(q.text, ranked[i].statement)), tied[0])
            ranked = [ranked[fit], *ranked[:fit], *ranked[fit + 1 :]]
        if not ranked or ranked[0].score < self.claims.settings.min_score:
            return None
        clause = self._clause(q, hits)
        if clause is not None and self._passage_wins(clause, ranked[0]):
            return self._from_statements(q, clause, hits, reading)
        decision = self.claims.decide_ranked(ranked, q.format, q.yes_no)
        amount = stated_amount(fold(ranked[0].statement), unit) if unit else None
        if (
            decision is not None
            and amount is not None
            and decision.value is None
            and ranked[0].node.id in decision.sources
        ):
            decision = replace(decision, value=Value("number", amount, unit))
        return decision

    def _stating(
        self, ranked: list[ClaimMatch], unit: str, q: Question, reading: Reading, cards: list[str]
    ) -> int | None:
        """For a question asking an amount ("how many Life Points does a team have?"), the best
        claim that holds and states an amount of that unit, about no card the question does not
        name (a card's effect changes amounts, it does not set them): a claim stating no amount
        cannot answer, however well it aligns. One stated by the best claim's own passage comes
        first (the passage the question aligns with states the amount)."""
        stating = [
            i
            for i, m in enumerate(ranked)
            if m.score >= self.claims.settings.min_score
            and m.node.props.get("holds")
            and states_amount(fold(m.statement), unit)
            and {
                f.object for f in self.kg.out(m.node.id, "concerns") if f.object.startswith("card/")
            }
            <= set(cards)
            and self._claim_speaks(m, q, reading, cards)
        ]
        same_passage = [i for i in stating if ranked[i].source == ranked[0].source]
        first = same_passage or stating
        return first[0] if first else None

    def _number_asked(
        self, ranked: list[ClaimMatch], q: Question, reading: Reading, cards: list[str]
    ) -> int | None:
        """The claim giving the very number asked, when the best one gives another: it outweighs
        one other-case penalty (the claims above it of other numbers lost `other_case` for them
        and still lead)."""
        floor = ranked[0].score - self.claims.settings.other_case
        return next(
            (
                i
                for i, m in enumerate(ranked)
                if m.score >= floor
                and same_counts(q.text, m.statement)
                and self._claim_speaks(m, q, reading, cards)
            ),
            None,
        )

    def _claim_speaks(
        self, match: ClaimMatch, q: Question, reading: Reading, cards: list[str]
    ) -> bool:
        """A claim speaks to the question: of the named cards (or, general, of every card) and of
        what is asked (its predicate)."""
        node = match.node
        texts = (node.label_en or "", node.label_pt or "", node.text or "")
        concerns = {f.object for f in self.kg.out(node.id, "concerns")}
        general = self._general(match.format, q, reading, texts, concerns)
        return (
            (not cards or self._speaks_of(concerns, cards, general))
            and (
                self.relevance.shares_predicate(reading, texts, concerns)
                or self._same_cards(concerns, cards)
            )
            and self._says_what_exists(q, texts)
        )

    def _same_cards(self, concerns: set[str], cards: list[str]) -> bool:
        """A claim about the very cards the question brings together (two or more, each by name
        or class: Heavy Storm, Fake Trap and a Trap Monster) speaks of that situation, however
        the question words what happens ("save it" for "prevent its destruction")."""
        named = set(cards)
        return len(named) >= 2 and all(
            card in concerns or card_classes(self.kg, card) & concerns for card in named
        )

    def _says_what_exists(self, q: Question, texts: tuple[str, ...]) -> bool:
        """For "is there X?", a statement speaks to it only if it names every word of X ("a
        maximum number of Chain Links": a rule on Chain Links that says nothing of a maximum
        does not say whether there is one)."""
        what = existence_asked(q.text)
        if what is None:
            return True
        said = {stem for t in texts if t for stem in analyse(t)}
        return all(stem in said for stem in analyse(what))

    def _speaks_of_cards(self, clause: Clause, q: Question, reading: Reading) -> bool:
        entities = set(clause.hit.entities)
        general = self._general(clause.hit.format, q, reading, (clause.text,), entities)
        cards = [m.entity for m in q.mentions if m.entity.startswith("card/")]
        return self._speaks_of(entities, cards, general)

    def _general(
        self,
        rule_format: str | None,
        q: Question,
        reading: Reading,
        texts: tuple[str, ...],
        entities: set[str],
    ) -> bool:
        """A rule may speak of cards it does not single out: it holds in the format asked and
        covers most of what the question asks."""
        return self._in_asked_format(rule_format, q.format) and (
            coverage(reading, texts, entities) >= GENERAL_COVERAGE
        )

    def _in_asked_format(self, rule_format: str | None, asked: str | None) -> bool:
        """A rule holds in the format asked about (today's rules when none is named)."""
        base = self.formats.base
        return rule_format in {asked or base, base}

    def _speaks_of(self, concerns: set[str], cards: list[str], general: bool) -> bool:
        """A rule speaks of the named cards when it concerns one of them or a class of one of them
        (a rule about Trap Monsters speaks to a Trap Monster card). With `general` (the rule holds
        where the question is asked and covers most of what it asks), a rule that singles out no
        card and no class of card speaks of every card (attacking with a teammate's monster,
        0-ATK battles) — unless it is about another kind of card (monsters, to a Trap Card)."""
        if (
            general
            and not any(c.startswith("card/") or c in self.card_classes for c in concerns)
            and not _other_kind(self.kg, concerns, cards)
        ):
            return True
        return any(card in concerns or card_classes(self.kg, card) & concerns for card in cards)

    def _passage_wins(self, clause: Clause, claim: ClaimMatch) -> bool:
        span = clause.hit.node.span
        claim_span = claim.node.span
        if span is None or claim_span is None or span.document in self.claimed_documents:
            return False
        return clause.score >= claim.score + PASSAGE_OVER_CLAIM

    def _grounded(self, reading: Reading | None, clause: Clause) -> bool:
        """Every content word of the question is a rule word and the clause names a concept it
        names besides a party: in scope however low the cosine (a question in another language
        than the documents aligns less)."""
        return (
            reading is not None
            and bool(reading.content)
            and not reading.off_topic
            and bool((reading.concepts - reading.parties) & set(clause.hit.entities))
        )

    def _in_scope(self, hits: list[Hit]) -> bool:
        return (bool(hits) and max(h.scores["dense"] for h in hits) >= MIN_DENSE) or any(
            h.scores["graph"] > 0.5 for h in hits[:3]
        )

    def _not_understood(self, q: Question) -> Decision | None:
        said = self.vocabulary.not_understood(q.text, q.mentions)
        if said is None:
            return None
        en, pt = said
        return Decision(
            verdict=None,
            steps=[],
            summary_en=f"No ruling found in the knowledge base. {en}",
            summary_pt=f"Nenhuma regra encontrada na base de conhecimento. {pt}",
            confidence=None,
            reasoner="none",
        )

    def _newer_mechanic(self, q: Question) -> Decision | None:
        """A question about a format whose rules date from before a mechanic it names came to the
        game (Pendulum Summons in the 2010 Edison Format): no rule of that format speaks of it."""
        spec = self.formats.get(q.format) if q.format else None
        if spec is None or not spec.as_of:
            return None
        year = int(spec.as_of[:4])
        for m in q.mentions:
            node = self.kg.get(m.entity)
            if node is None:
                continue
            introduced = node.props.get("introduced")
            if not isinstance(introduced, int) or introduced <= year:
                continue
            what_en = node.label_en or m.entity
            what_pt = node.label_pt or what_en
            return Decision(
                verdict=None,
                steps=[],
                summary_en=f"No ruling found: the rules of {spec.label_en} are those of "
                f"{spec.as_of}, and {what_en} came to the game in {introduced} (curated "
                "glossary): no rule of that format speaks of it.",
                summary_pt=f"Nenhuma regra encontrada: as regras do {spec.label_pt} são as de "
                f"{spec.as_of}, e {what_pt} chegou ao jogo em {introduced} (glossário curado): "
                "nenhuma regra desse formato trata disso.",
                confidence=None,
                reasoner="none",
            )
        return None

    def _unknown(self, q: Question) -> bool:
        return self.vocabulary.unknown(q.text, q.mentions)

    def _from_statements(
        self, q: Question, clause: Clause | None, hits: list[Hit], reading: Reading | None = None
    ) -> Decision:
        if (
            self._unknown(q)
            or clause is None
            or clause.score < MIN_SUPPORT
            or not (self._in_scope(hits) or self._grounded(reading, clause))
            or (
                reading is not None
                and not self.relevance.shares_predicate(
                    reading, (clause.text,), clause.hit.entities
                )
            )
            or (q.yes_no and not self._says_what_exists(q, (clause.text,)))
        ):
            return Decision(
                verdict=None,
                steps=[],
                summary_en="No ruling found in the knowledge base for this question.",
                summary_pt="Nenhuma regra encontrada na base de conhecimento para esta pergunta.",
                confidence=None,
                reasoner="none",
            )
        src = clause.hit.node.id
        step = Step(f"Deciding statement: {clause.text}", f"Trecho decisivo: {clause.text}", src)
        if not q.yes_no:
            unit = asked_unit(q.folded)
            amount = stated_amount(fold(clause.text), unit) if unit else None
            return Decision(
                verdict=None,
                steps=[step],
                summary_en=clause.text,
                summary_pt=clause.text,
                confidence=None,
                sources=[src],
                reasoner="statement",
                value=Value("number", amount, unit) if amount is not None else None,
            )
        span = clause.hit.node.span
        at = (
            Span(span.document, span.start + clause.start, span.start + clause.end)
            if span is not None
            else None
        )
        typed = self._typed(q)
        if at is not None:
            qvec = self.index._query_vec(q.text) if self.index.embedder is not None else None
            # a sentence giving a card of the question another role, or speaking of another party
            # or of nothing asked, yields to the statements matched by role
            matched = self.statements.instead_of(typed, at, q.format, qvec)
            if matched is not None:
                return matched
            # a statement giving the amount asked is more specific than the passage's clause
            counting = (
                None
                if self.statements.states_amount_at(typed, at)
                else self.statements.counting(typed, q.format, qvec)
            )
            if counting is not None:
                return amount_decision(counting, clause.text, src)
        typed_verdict = self.statements.verdict_at(typed, at) if at is not None else None
        if typed_verdict is not None:
            # the typed reading of the sentence's clause decides its polarity for the question
            # (the amounts the typed reading compared itself, when the sentence states one)
            counted = at is not None and self.statements.states_amount_at(typed, at)
            positive = typed_verdict == "yes" and not contradicts(
                q.text, clause.text, counts=not counted
            )
        else:
            positive = not clause.negative
            if contradicts(q.text, clause.text):
                positive = not positive
            if question_negated(q.text):
                positive = not positive
            if positive and at is not None:
                # the typed reading of the same sentence: another amount or kind than asked
                positive = not self.statements.other_case(typed, at)
        verdict = "yes" if positive else "no"
        en = f"{'Yes' if positive else 'No'}. According to the rules: “{clause.text}”"
        pt = f"{'Sim' if positive else 'Não'}. Segundo as regras: “{clause.text}”"
        conf = round(min(0.75, max(0.3, clause.score - 0.25)), 2)
        return Decision(
            verdict=verdict,
            steps=[step],
            summary_en=en,
            summary_pt=pt,
            confidence=conf,
            sources=[src],
            reasoner="statement",
        )

    def _confidence(self, d: Decision) -> float | None:
        """The probability that the verdict is right, as measured; no verdict, no confidence."""
        if d.verdict is None or d.confidence is None:
            return None
        if self.calibration is None:
            return d.confidence
        return self.calibration.confidence(d.reasoner, d.confidence)

    def _citable(self, node_id: str) -> str:
        """What a source is cited as: a document passage. A card entry of a summon list is its
        whole list item (the sentence); a claim is the passage that states it, so a claim and its
        contrary, asked in pt or en, cite the same sentence."""
        node = self.kg.get(node_id)
        if node is not None and node.props.get("kind") == "entry" and node.parent:
            return node.parent
        if node is not None and node.type == "Claim":
            stated = self.kg.out(node_id, "stated_in")
            if stated and stated[0].object in self.kg:
                return self._citable(stated[0].object)
        return node_id

    def _compose(self, q: Question, d: Decision, hits: list[Hit], k: int) -> dict[str, Any]:
        cited: list[dict[str, Any]] = []
        seen: set[str] = set()
        sources = [self._citable(s) for s in d.sources]
        filled = []
        for h in hits:  # an example retrieved comes with the rule it illustrates
            filled.append(h.node.id)
            rule = illustrated_rule(self.kg, h.node.id, hits)
            if rule is not None:
                filled.append(rule)
        for rank, node_id in enumerate([*sources, *filled]):
            if node_id in seen or node_id not in self.kg or len(cited) >= k:
                continue
            node = self.kg.node(node_id)
            if node.span is None or not node.text:
                continue
            seen.add(node_id)
            stated = self.kg.out(node_id, "stated_in")
            section = self.kg.section_of(stated[0].object if stated else node_id)
            hit_score = next((h.score for h in hits if h.node.id == node_id), 0.0)
            cited.append(
                {
                    "id": node_id,
                    "document": node.span.document,
                    "section": section.id if section else None,
                    "text": self.documents[node.span.document][node.span.start : node.span.end],
                    "start": node.span.start,
                    "end": node.span.end,
                    "score": round(1.0 if rank < len(d.sources) else hit_score, 6),
                }
            )
        if d.verdict is None and d.reasoner == "none":
            related = [h.node.id for h in hits[:k]]
            cited = []
        else:
            related = sorted({e for h in hits[:3] for e in h.entities})[:20]
        return {
            "question": q.text,
            "format": q.format,
            "verdict": d.verdict,
            "answer": d.summary_pt if q.lang == "pt" else d.summary_en,
            "confidence": self._confidence(d),
            "reasoning": [
                {
                    "step": s.text_pt if q.lang == "pt" else s.text_en,
                    "source": s.source,
                    **({"fact": s.fact} if s.fact else {}),
                }
                for s in d.steps
            ],
            "citations": cited,
            "entities": [
                {
                    "id": m.entity,
                    "type": self.index.linker.entries[m.entity].type,
                    "label": self.index.linker.entries[m.entity].label,
                    "span": [m.start, m.end],
                }
                for m in q.mentions
            ],
            "related": related,
            "reasoner": d.reasoner,
            "value": (
                {"kind": d.value.kind, "value": d.value.value, "unit": d.value.unit}
                if d.value is not None
                else None
            ),
            "suggestions": self._suggestions(q, d),
        }

    def _suggestions(self, q: Question, d: Decision) -> list[dict[str, Any]]:
        """Without a ruling, the cards the question's unlinked name-like spans may mean."""
        if self.suggest is None or d.verdict is not None or d.reasoner != "none":
            return []
        taken = [
            (m.start, m.end)
            for m in q.mentions
            if self.index.linker.entries[m.entity].type in ("Card", "Format")
        ]
        return self.suggest(q.text, taken)
