"""Answering a ruling question: link, detect format and language, reason, retrieve, cite."""

from __future__ import annotations

from typing import Any

from kb.graph import KnowledgeGraph
from kb.question import Question, detect_format, detect_lang, is_yes_no
from kb.reason import Decision, Step
from kb.reason.chain import decide_chain, decide_resolution
from kb.reason.claims import ClaimReader
from kb.reason.damage import decide_damage_step
from kb.reason.lp_cost import decide_lp_cost
from kb.reason.segoc import decide_segoc
from kb.reason.statement import best_clause, contradicts, question_negated
from kb.reason.summon import decide_summon, decide_summon_kind
from kb.scope import Vocabulary, uncovered_topic
from kb.search import Hit, SearchIndex, SearchOptions

MIN_SUPPORT = 0.80  # below this alignment score nothing in the KB decides the question
MIN_DENSE = 0.82  # cosine of the best hit under which the question is out of scope


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
        self.vocabulary = Vocabulary.of(kg)

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
            lambda: decide_damage_step(self.kg, q.text, q.mentions, q.format),
            lambda: decide_segoc(self.kg, q.text, q.format),
            lambda: decide_lp_cost(self.kg, q.text, q.mentions, q.format),
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

    def _not_understood(self, q: Question) -> Decision | None:
        said = self.vocabulary.not_understood(q.text, q.mentions)
        if said is None:
            return None
        en, pt = said
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
        return self.vocabulary.unknown(q.text, q.mentions)

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
