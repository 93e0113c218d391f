"""Answering a ruling question: link, detect format and language, reason, retrieve, cite."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kb.analysis import STOP_WORDS
from kb.graph import KnowledgeGraph
from kb.ids import fold
from kb.link import Mention
from kb.reason import Decision, Step
from kb.reason.chain import decide_chain, decide_resolution
from kb.reason.claims import ClaimReader
from kb.reason.damage import decide_damage_step
from kb.reason.lp_cost import decide_lp_cost
from kb.reason.segoc import decide_segoc
from kb.reason.statement import best_clause, contradicts, question_negated
from kb.reason.summon import decide_summon, decide_summon_kind
from kb.scope import uncovered_topic
from kb.search import Hit, SearchIndex, SearchOptions

# Open (non yes/no) questions: a question word at the start (after an optional "No Edison," /
# "Tag Duel:" prefix), or an interrogative phrase anywhere.
_OPEN = re.compile(
    r"^(?:[^?]{0,30}?[:,]\s*)?\W*(quem|qual|quais|como|onde|quant[oa]s?|o que|oque|por ?que|"
    r"porque|em que|que tipo|what|who|whose|which|how|where|why|list|liste|explique|explain|"
    r"descreva|describe)\b"
)
# An interrogative phrase near the start, or a copula asking for a value ("… is which link?").
_OPEN_NEAR = re.compile(
    r"\b(quant[oa]s|qual|quais|o que acontece|what happens|que acontece|em que (ordem|momento|etapa)|"
    r"que tipo|what kind|which kind|in what order|em que ano|what year|which|how many|how much|"
    r"what|when (?:did|was|were|is|does)|quando (?:foi|e|é|mudou))\b"
)
_OPEN_VALUE = re.compile(
    r"\b(is|are|was|e|é|sao|são|fica|ficam|com|with|tem|has|have) "
    r"(which|what|qual|quais|quantos|quantas|how many)\b"
    r"|\b(quem|who) (e|é|sera|será|foi|is|was|will be)\b"
)
# A choice between alternatives after a colon/comma/dash: "Dark Simorgh: inherent or non-inherent?"
_EITHER_OR = re.compile(
    r"[:,\-–—]\s*(?:is it |e |é )?[\w\s-]{1,40}\b(or|ou)\b(?! not\b| nao\b)[\w\s-]{1,40}\?\s*$"
    r"|\b([\w-]+) (?:or|ou) (?:non|nao|não)[ -]?\2\b"
)
# A request, not a question: "Give me …", "Liste …" without a question mark.
_REQUEST = re.compile(
    r"^\W*(give|tell|show|list|explain|describe|recommend|suggest|write|help|"
    r"de|dê|diga|mostre|liste|explique|descreva|recomende|sugira|escreva|ajude|me de|me dê)\b"
)
_PT = re.compile(
    r"\b(nao|não|pode|posso|é|uma|um|com|que|do|da|no|na|em|se|carta|jogador|duelista|corrente|quando|qual|quem|como|isso|eu|meu|minha|ser|sao|são)\b"
)
_EN = re.compile(
    r"\b(the|can|does|is|my|i|of|to|in|when|what|who|which|how|chain|player|card|if|it|an|and|do|be)\b"
)
_TAG_WORDS = re.compile(
    r"\b(tag|duelista [12][ab]|[12][ab]|companheiro de equipe|teammate|team|equipe|dupla|2v2|2 vs 2|parceiro|partner)\b"
)
_EDISON_WORDS = re.compile(r"\bedison\b")
_CURRENT_WORDS = re.compile(
    r"\b(current|currently|atual|atuais|atualmente|modern|moderno|moderna|nowadays|"
    r"hoje em dia|today|latest|mais recente)\b"
)
# A run of capitalised words (a card name) that links to nothing: the KB does not know that card.
_NAME_RUN = re.compile(
    r"(?<![\w])[A-Z][\w'\-\"]*(?:(?:\s+|,\s+)(?:(?:of|the|by|de|do|da|dos|das|o|a)\s+)*[A-Z\"][\w'\-\"]*)+"
)
_STARTERS = frozenset(
    [
        "can",
        "does",
        "do",
        "did",
        "is",
        "are",
        "was",
        "were",
        "will",
        "would",
        "should",
        "may",
        "must",
        "has",
        "have",
        "i",
        "i'm",
        "in",
        "no",
        "na",
        # sentence openers that are no part of a name
        "since",
        "because",
        "after",
        "before",
        "when",
        "while",
        "if",
        "then",
        "also",
        "but",
        "so",
        "and",
        "or",
        "now",
        "what",
        "why",
        "how",
        "depois",
        "antes",
        "quando",
        "entao",
        "porque",
        "mas",
        "agora",
        "ja",
    ]
)
# A capitalised word (a name) and a "<name> format" / "formato <name>" phrase.
_CAPITALISED = re.compile(r"(?<![\w'-])[A-ZÀ-Ý][\w'-]{3,}")
_FORMAT_NAME = re.compile(r"\b([a-z0-9]+)[ -]format\b|\bformato (?:de |do )?([a-z0-9]+)\b")
_KNOWN_FORMAT_WORDS = frozenset(
    [
        "edison",
        "tag",
        "atual",
        "current",
        "tcg",
        "ocg",
        "avancado",
        "advanced",
        "this",
        "that",
        "the",
        "esse",
        "este",
        "nesse",
        "neste",
        "duelo",
        "duel",
        "match",
        "partida",
        "oficial",
        "official",
        "tradicional",
        "traditional",
        "same",
        "mesmo",
        "o",
        "a",
        "um",
        "an",
        "2010",
        "whole",
        "which",
        "what",
        "qual",
        "que",
    ]
)
_QUESTION_WORDS = frozenset(
    [
        "posso",
        "pode",
        "podem",
        "podemos",
        "consigo",
        "consegue",
        "da",
        "dá",
        "tem",
        "temos",
        "quem",
        "qual",
        "quais",
        "quando",
        "como",
        "onde",
        "quanto",
        "quantos",
        "quantas",
        "porque",
        "existe",
        "existem",
        "voce",
        "você",
        "vocês",
        "eu",
        "meu",
        "minha",
        "nos",
        "nós",
        "does",
        "do",
        "did",
        "can",
        "could",
        "is",
        "are",
        "was",
        "were",
        "will",
        "would",
        "should",
        "may",
        "must",
        "has",
        "have",
        "what",
        "which",
        "who",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "yes",
        "sim",
        "isso",
        "esse",
        "essa",
        "este",
        "esta",
        "then",
        "also",
        "and",
        "but",
        "mas",
        "se",
        "if",
        "okay",
        "ok",
        "hey",
        "alguem",
        "someone",
        "anyone",
        "galera",
        "pessoal",
        "help",
        "ajuda",
        "duvida",
        "dúvida",
        "question",
        "pergunta",
    ]
)


def vocabulary(kg: KnowledgeGraph) -> frozenset[str]:
    """Every word the KB uses: document text, claims, card and concept names and definitions."""
    words: set[str] = set()
    for n in kg.nodes:
        parts = [n.text, n.label_en, n.label_pt, *n.props.get("aliases", [])]
        parts += [n.props.get("definition_en"), n.props.get("definition_pt")]
        for part in parts:
            if part:
                words.update(re.findall(r"[\w'-]+", fold(part)))
    return frozenset(words)


MIN_SUPPORT = 0.80  # below this alignment score nothing in the KB decides the question
MIN_DENSE = 0.82  # cosine of the best hit under which the question is out of scope


@dataclass(frozen=True)
class Question:
    text: str
    lang: str
    format: str | None
    yes_no: bool
    mentions: list[Mention]


def detect_lang(text: str) -> str:
    q = fold(text)
    return "pt" if len(_PT.findall(q)) >= len(_EN.findall(q)) else "en"


def detect_format(text: str, mentions: list[Mention], given: str | None) -> str | None:
    if given:
        return given
    q = fold(text)
    if _EDISON_WORDS.search(q) or any(m.entity == "format/edison" for m in mentions):
        return "edison"
    if _TAG_WORDS.search(q) or any(
        m.entity in ("format/tag", "concept/tag-duel") for m in mentions
    ):
        return "tag"
    if _CURRENT_WORDS.search(q):
        return "general"  # today's game: the modern rules, not a 2010 or Tag ruling
    return None


_AUX = re.compile(
    r"(?:^|[,;:]\s*)(does|do|did|can|could|is|are|was|were|will|would|should|may|must|has|have)\b"
)


def is_yes_no(text: str) -> bool:
    """A yes/no question: no question word near the start, or an English auxiliary-led clause."""
    sentences: list[str] = []
    for part in re.split(r"(?<=[.;?])\s+", fold(text).strip()):
        if sentences and len(part.split()) < 3:
            sentences[-1] += " " + part  # "Yu-Gi-Oh! GX?" is not a sentence of its own
        elif part:
            sentences.append(part)
    q = sentences[-1] if sentences else ""
    if _EITHER_OR.search(q) and not re.search(r"\b(sim ou nao|yes or no)\b", q):
        return False  # "… : inherent or non-inherent?" asks which, not whether
    if _AUX.search(q):
        return True
    if "?" not in text and _REQUEST.search(q):
        return False
    head = " ".join(q.split()[:7])
    return not (_OPEN.search(head) or _OPEN_NEAR.search(head) or _OPEN_VALUE.search(q))


def _not_covered(topic_en: str, topic_pt: str) -> Decision:
    return Decision(
        None,
        [],
        f"No ruling found in the knowledge base: its rule documents do not cover {topic_en}.",
        f"Nenhuma regra encontrada na base de conhecimento: seus documentos de regras não "
        f"tratam de {topic_pt}.",
        0.05,
        [],
        "none",
    )


class Answerer:
    """Composes reasoners and retrieval into the /ask contract."""

    def __init__(self, kg: KnowledgeGraph, index: SearchIndex, documents: dict[str, str]) -> None:
        self.kg = kg
        self.index = index
        self.documents = documents
        self.claims = ClaimReader(kg, index)
        self.vocabulary = vocabulary(kg)

    def parse(self, text: str, fmt: str | None) -> Question:
        mentions = self.index.linker.link(text, fuzzy=True)
        return Question(
            text, detect_lang(text), detect_format(text, mentions, fmt), is_yes_no(text), mentions
        )

    def answer(self, text: str, fmt: str | None, k: int) -> dict[str, Any]:
        q = self.parse(text, fmt)
        entities = [m.entity for m in q.mentions if not m.entity.startswith("format/")]
        hits = self.index.search(text, SearchOptions(k=max(k, 8), format=q.format), q.mentions)
        topic = uncovered_topic(text)
        if topic is not None:
            return self._compose(q, _not_covered(*topic), hits, k)
        unclear = self._not_understood(q)
        if unclear is not None:
            return self._compose(q, unclear, hits, k)
        decision = self._reason(q, entities) if q.yes_no else None
        if decision is None and not self._unknown(q):
            decision = self.claims.decide(q.text, q.mentions, q.format, q.yes_no)
        if decision is None:
            decision = self._from_statements(q, entities, hits)
        return self._compose(q, decision, hits, k)

    def _reason(self, q: Question, entities: list[str]) -> Decision | None:
        for reasoner in (
            lambda: decide_summon(self.kg, q.text, entities, q.lang),
            lambda: decide_summon_kind(self.kg, entities, q.lang),
            lambda: decide_damage_step(self.kg, q.text, q.mentions, q.format, q.lang),
            lambda: decide_segoc(self.kg, q.text, q.format, q.lang),
            lambda: decide_lp_cost(self.kg, q.text, q.mentions, q.format, q.lang),
            lambda: decide_resolution(self.kg, q.text, q.mentions, q.lang),
            lambda: decide_chain(self.kg, q.text, q.mentions, q.lang),
        ):
            decision = reasoner()
            if decision is not None:
                return decision
        return None

    def _in_scope(self, hits: list[Hit]) -> bool:
        return (bool(hits) and max(h.scores["dense"] for h in hits) >= MIN_DENSE) or any(
            h.scores["graph"] > 0.5 for h in hits[:3]
        )

    def _unknown_names(self, q: Question) -> list[str]:
        """Capitalised multi-word names in the question that link to no entity."""
        spans = [(m.start, m.end) for m in q.mentions]
        out = []
        for m in _NAME_RUN.finditer(q.text):
            words = [w for w in re.split(r"[\s,]+", m.group(0)) if w]

            def opener(word: str) -> bool:
                w = fold(word)
                return w in STOP_WORDS or w in _STARTERS or w in _QUESTION_WORDS

            while words and opener(words[0]):
                words.pop(0)
            capitals = [w for w in words if w[:1].isupper() or w.startswith('"')]
            if len(capitals) >= 2 and not any(a < m.end() and m.start() < b for a, b in spans):
                out.append(" ".join(words))
        return out

    def _unknown_words(self, q: Question) -> list[str]:
        """Capitalised words no document, claim, card or concept of the KB uses ("Nibiru"), and
        formats it does not know ("goat format", "formato Rush")."""
        spans = [(m.start, m.end) for m in q.mentions]
        out = []
        for m in _CAPITALISED.finditer(q.text):
            word = re.sub(r"['’]s$", "", fold(m.group(0)))
            inside = any(a <= m.start() and m.end() <= b for a, b in spans)
            if not inside and word not in self.vocabulary and word not in _QUESTION_WORDS:
                out.append(m.group(0))
        for m in _FORMAT_NAME.finditer(fold(q.text)):
            name = m.group(1) or m.group(2)
            if name not in _KNOWN_FORMAT_WORDS:
                out.append(m.group(0))
        return out

    def _not_understood(self, q: Question) -> Decision | None:
        """A question naming no card, concept or format and using no content word the KB knows:
        say what was not understood instead of searching for it."""
        if q.mentions:
            return None
        words = re.findall(r"[^\W\d_]{2,}", fold(q.text))
        content = [w for w in words if w not in STOP_WORDS and w not in _QUESTION_WORDS]
        if any(w in self.vocabulary for w in content):
            return None
        if content:
            quoted = ", ".join(f"“{w}”" for w in dict.fromkeys(content[:5]))
            en = f"Not understood: {quoted} — no card, rule term or word of the rule documents."
            pt = f"Não entendi: {quoted} — não é card, termo de regra nem palavra dos documentos."
        else:
            en = "Not understood: the question names no card, rule or game action to look up."
            pt = "Não entendi: a pergunta não cita card, regra ou ação de jogo para procurar."
        return Decision(
            None,
            [],
            f"No ruling found in the knowledge base. {en}",
            f"Nenhuma regra encontrada na base de conhecimento. {pt}",
            0.0,
            [],
            "none",
        )

    def _unknown(self, q: Question) -> bool:
        """The question names something (a card, a game) the KB does not know: it cannot rule
        on it, even when the question also names cards it knows."""
        return bool(self._unknown_names(q) or self._unknown_words(q))

    def _from_statements(self, q: Question, entities: list[str], hits: list[Hit]) -> Decision:
        scoped = [h for h in hits if q.format is None or h.format in (q.format, "general")]
        clause = best_clause(self.index, q.text, entities, scoped) if scoped else None
        if (
            self._unknown(q)
            or clause is None
            or clause.score < MIN_SUPPORT
            or not self._in_scope(hits)
        ):
            return Decision(
                None,
                [],
                "No ruling found in the knowledge base for this question.",
                "Nenhuma regra encontrada na base de conhecimento para esta pergunta.",
                0.1,
                [],
                "none",
            )
        src = clause.hit.node.id
        step = Step(f"Deciding statement: {clause.text}", f"Trecho decisivo: {clause.text}", src)
        if not q.yes_no:
            return Decision(None, [step], clause.text, clause.text, 0.5, [src], "statement")
        positive = not clause.negative
        if contradicts(q.text, clause.text):
            positive = not positive
        if question_negated(q.text):
            positive = not positive
        verdict = "yes" if positive else "no"
        en = f"{'Yes' if positive else 'No'}. According to the rules: “{clause.text}”"
        pt = f"{'Sim' if positive else 'Não'}. Segundo as regras: “{clause.text}”"
        conf = round(min(0.75, max(0.3, clause.score - 0.25)), 2)
        return Decision(verdict, [step], en, pt, conf, [src], "statement")

    def _citable(self, node_id: str) -> str:
        """A card entry of a summon list is cited as its whole list item (the sentence)."""
        node = self.kg.get(node_id)
        if node is not None and node.props.get("kind") == "entry" and node.parent:
            return node.parent
        return node_id

    def _compose(self, q: Question, d: Decision, hits: list[Hit], k: int) -> dict[str, Any]:
        cited: list[dict[str, Any]] = []
        seen: set[str] = set()
        sources = [self._citable(s) for s in d.sources]
        for rank, node_id in enumerate([*sources, *(h.node.id for h in hits)]):
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
            "confidence": d.confidence,
            "reasoning": [
                {"step": s.text_pt if q.lang == "pt" else s.text_en, "source": s.source}
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
        }
