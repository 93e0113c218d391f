"""The typed contracts: one pydantic model per JSON result of the service and of the HTTP edge.

The service keeps returning plain dicts (its callers index them); these models describe those
dicts exactly. The routes declare them (`response_model=`, so OpenAPI shows real schemas and every
response is checked), the CLI's `--json` prints the same dicts, and the tests validate real service
output against them. A closed shape forbids unknown keys, so a field added to a service result
without its model fails the schema tests instead of drifting silently.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from kb.errors import ERROR_CODES
from kb.model import Authority, NodeType
from kb.presentation.quiz import MAX_ANSWERS

Verdict = Literal["yes", "no"]
EntityType = Literal["Card", "Concept", "Format"]
HitType = Literal["Passage", "Example", "Step"]
OutlineType = Literal["Section", "Rule"]
QuestionKind = Literal["true-false", "yes-no", "multiple-choice"]
PageKind = Literal["rule", "section", "document", "card"]
ValueKind = Literal["number", "step", "player", "text"]

DOC = "A document id of the manifest."
OFFSET = "Character offset into the document's exact source text (GET /documents/{doc})."


class Closed(BaseModel):
    """A result whose keys are all known: an unknown key is a contract error."""

    model_config = ConfigDict(extra="forbid")


# --- shared pieces ------------------------------------------------------------------------------


class ReasonerStatus(Closed):
    name: str = Field(description="The reasoner's name (the `reasoner` of an answer it decides).")
    enabled: bool = Field(description="Whether the loaded KB holds the facts the reasoner needs.")
    needs: str = Field(description="What the reasoner needs from the KB, in words.")


class SourceSpan(Closed):
    """A cited source: `text == documents[document][start:end]`."""

    id: str = Field(description="The cited node's id.")
    document: str = Field(description=DOC)
    section: str | None = Field(description="The Section or Rule holding it.")
    start: int = Field(ge=0, description=OFFSET)
    end: int = Field(ge=0, description=OFFSET + " Exclusive.")
    text: str = Field(description="The exact slice of the document.")


# --- ask ----------------------------------------------------------------------------------------


class StepFact(Closed):
    """The card fact a step applies, with where it comes from."""

    subject: str
    predicate: str
    object: str
    authority: Authority
    password: int | None = Field(default=None, description="The card's password (card data).")
    dataset: str | None = Field(default=None, description="The datasets read, `|`-joined.")
    datasets: list[str] | None = Field(default=None, description="The datasets read.")
    file: str | None = Field(default=None, description="The curated file stating it.")
    line: int | None = Field(default=None, description="Its line in that file.")
    via: str | None = Field(default=None, description="How the fact was derived.")
    source: str | None = Field(default=None, description="The passage stating it.")


class ReasoningStep(Closed):
    step: str = Field(description="One hop of the reasoning, in the question's language.")
    source: str | None = Field(
        description="The passage (or claim) id stating it; null for a curated fact."
    )
    fact: StepFact | None = Field(
        default=None, description="The card fact it applies; absent when a passage states it."
    )


class AnswerCitation(Closed):
    """A cited passage: `text == documents[document][start:end]`."""

    id: str = Field(description="The cited node's id.")
    document: str = Field(description=DOC)
    section: str | None = Field(description="The Section or Rule holding it.")
    text: str = Field(description="The exact slice of the document.")
    start: int = Field(ge=0, description=OFFSET)
    end: int = Field(ge=0, description=OFFSET + " Exclusive.")
    score: float = Field(ge=0, description="1 for a source of the reasoning, else its hit score.")


class Entity(Closed):
    """An entity named in the question."""

    id: str = Field(description="The node id (card/…, concept/…, format/…).")
    type: EntityType
    label: str = Field(description="Its display label (English where it has one).")
    span: tuple[int, int] = Field(description="[start, end) offsets into the question text.")


class AnswerValue(Closed):
    """A value the answer states beside its cited sentence (how many copies, which step …)."""

    kind: ValueKind
    value: str | int
    unit: str | None = Field(description="The unit of a number (copies, LP …), or null.")


class CardSuggestion(Closed):
    """A card the question may mean ("did you mean"): a span that reads like a card name the
    linker did not resolve, and the card card search finds for it."""

    span: tuple[int, int] = Field(description="[start, end) offsets into the question text.")
    text: str = Field(description="The question's words at that span.")
    id: str = Field(description="The card's id (card/…).")
    name_en: str
    name_pt: str | None
    score: float = Field(ge=0, le=1, description="Card search's score for the span.")


class Answer(Closed):
    """`POST /ask` and `ygo-rulings ask --json`."""

    question: str = Field(description="The question as asked.")
    format: str | None = Field(description="The format given or detected; null when none.")
    verdict: Verdict | None = Field(description="yes, no, or null when nothing decides it.")
    answer: str = Field(description="The answer, in the question's language (pt or en).")
    confidence: float | None = Field(
        ge=0, le=1, description="How sure the deciding reasoner is; null without a verdict."
    )
    reasoning: list[ReasoningStep] = Field(description="The path through the graph, in order.")
    citations: list[AnswerCitation] = Field(description="Exact citations, best first.")
    entities: list[Entity] = Field(description="Cards, concepts and formats named.")
    related: list[str] = Field(description="Ids of related entities (or passages, when unsure).")
    reasoner: str = Field(
        description="What decided: a reasoner's name (see /stats), claim, statement, or none."
    )
    value: AnswerValue | None = Field(description="The value it states, when it states one.")
    suggestions: list[CardSuggestion] = Field(
        default_factory=list,
        description="Did you mean: when no ruling is found, cards a name-like span of the question "
        "may mean (best first; empty otherwise).",
    )


# --- search and link ----------------------------------------------------------------------------


class RankerScores(Closed):
    dense: float = Field(description="Cosine similarity of the embeddings.")
    lexical: float = Field(ge=0, description="BM25 score.")
    graph: float = Field(ge=0, description="Share of the query's entities the node is tied to.")


class SearchHit(Closed):
    id: str = Field(description="The node id.")
    type: HitType
    document: str = Field(description=DOC)
    section: str | None = Field(description="The Section or Rule holding it.")
    format: str | None = Field(description="The format of its document.")
    text: str | None = Field(description="The node's text.")
    start: int = Field(ge=0, description=OFFSET)
    end: int = Field(ge=0, description=OFFSET + " Exclusive.")
    score: float = Field(ge=0, description="The fused (reciprocal rank) score.")
    scores: RankerScores = Field(description="Each ranker's own score.")
    entities: list[str] = Field(description="Entities the node mentions or is about.")


class SearchResult(Closed):
    """`GET /search` and `ygo-rulings search --json`."""

    query: str
    format: str | None = Field(description="The format filter; null for every format.")
    hits: list[SearchHit] = Field(description="Best first.")


class LinkedEntity(Entity):
    matched: str = Field(description="The text that matched.")
    score: float = Field(ge=0, le=1, description="1 for an exact surface, less for a fuzzy one.")


class LinkResult(Closed):
    """`GET /link` and `ygo-rulings link`."""

    query: str
    entities: list[LinkedEntity]


# --- nodes --------------------------------------------------------------------------------------


class Span(Closed):
    document: str = Field(description=DOC)
    start: int = Field(ge=0, description=OFFSET)
    end: int = Field(ge=0, description=OFFSET + " Exclusive.")


class FactView(Closed):
    """A typed edge with its source passage and authority."""

    subject: str
    predicate: str
    object: str
    source: str | None = Field(description="The passage stating it; null for structure or data.")
    authority: Authority = Field(description="document > curated > inferred.")
    props: dict[str, Any] = Field(
        default_factory=dict, description="Extra detail (offsets of a mention …); absent if none."
    )


class NodeView(Closed):
    """`GET /id/{id}` (as JSON) and `ygo-rulings show --json`."""

    id: str
    type: NodeType
    label_pt: str | None
    label_en: str | None
    text: str | None = Field(description="Its exact source text, for text-bearing nodes.")
    span: Span | None
    parent: str | None
    order: int | None
    props: dict[str, Any] = Field(description="Type-specific properties (card data, numbers …).")
    document_title: str | None = Field(description="The pt title of the document holding it.")
    out: list[FactView] = Field(description="Facts with this node as subject (not part_of).")
    in_: list[FactView] = Field(
        alias="in", description="Facts with this node as object (not part_of; at most 200)."
    )
    children: list[str] = Field(description="Ids of the nodes part of it, in order.")
    section: str | None = Field(description="The Section or Rule holding it.")


# --- stats and health ---------------------------------------------------------------------------


class UnlinkedMention(Closed):
    node: str = Field(description="The node whose text names an unknown card.")
    start: int = Field(ge=0, description=OFFSET)
    end: int = Field(ge=0, description=OFFSET + " Exclusive.")
    text: str


class FormatInfo(Closed):
    id: str = Field(description="The format id (the `format` parameter).")
    label_pt: str
    label_en: str
    documents: list[str] = Field(description="The documents that define it.")
    card_pool: bool = Field(description="It declares a card pool (cards outside it are illegal).")
    banlist: bool = Field(description="It declares a Forbidden & Limited list (GET /banlist).")
    deck_rules: bool = Field(description="It declares deck rules (POST /deck/validate).")


class Stats(Closed):
    """`GET /stats` and `ygo-rulings stats --json`."""

    build_id: str | None
    corpus_hash: str | None
    nodes: dict[str, int] = Field(description="Node count by type.")
    edges: dict[str, int] = Field(description="Fact count by predicate.")
    rules_by_document: dict[str, int]
    examples_by_document: dict[str, int]
    damage_substeps: int = Field(ge=0)
    cards: int = Field(ge=0)
    cards_bilingual: int = Field(ge=0, description="Cards with both a pt and an en name.")
    concepts: int = Field(ge=0)
    unlinked_card_mentions: int = Field(ge=0)
    unlinked: list[UnlinkedMention]
    statements: int = Field(ge=0, description="Rule statements read from the documents.")
    statements_unread: int = Field(
        ge=0, description="Sentences the reader could not type: kept as plain passages."
    )
    formats: list[FormatInfo]
    reasoners: list[ReasonerStatus]


class Health(Closed):
    """`GET /health`: what this process serves (there is no CLI twin: a CLI run has no server)."""

    ok: Literal[True]
    version: str = Field(description="The ygo-rulings version serving (its package metadata).")
    build_id: str | None
    corpus_hash: str | None
    stale: bool = Field(description="True when serving the previous build after a failed one.")
    stale_error: str | None = Field(description="Why the corpus change failed to build.")
    model: str | None = Field(description="The embedding model's name.")
    model_warning: str | None = Field(
        default=None,
        description="Why the configured embedding runner is not the one serving (it fell back).",
    )
    reasoners: list[ReasonerStatus]
    repaired: list[str] = Field(
        description="Warnings: files of the build (an export, the SPARQL store) or the embedding "
        "cache found damaged at start and rebuilt before serving (empty: all sound)."
    )
    worker_restarts: int = Field(
        ge=0,
        description="Workers `serve --workers N` started again after one exited (0 with one "
        "process).",
    )


# --- judge training -----------------------------------------------------------------------------


class QuizOption(Closed):
    key: str = Field(description="What to answer: true/false, yes/no or a letter.")
    text: str


class QuizQuestion(Closed):
    id: str = Field(description="Stable: names the source and the variant.")
    kind: QuestionKind
    family: str = Field(description="What it is drawn from: statement, order, summon …")
    format: str
    topics: list[str]
    prompt: str
    context: str | None
    statement: str | None = Field(description="The statement judged, for true-false questions.")
    options: list[QuizOption]
    answer: str = Field(description="The key of the right option.")
    explanation: str
    machine_translated: bool = Field(
        description="The cited text is a machine translation (its wording may not be the "
        "official one); the explanation says so."
    )
    citation: SourceSpan


class Quiz(Closed):
    """`GET /quiz` and `ygo-rulings quiz --json`."""

    format: str | None
    topic: str | None
    n: int = Field(ge=1, le=50)
    seed: int = Field(ge=0, le=2**32 - 1, description="Same seed, same questions.")
    available: int = Field(ge=0, description="Distinct questions the filters allow.")
    questions: list[QuizQuestion]


class QuizTopic(Closed):
    id: str = Field(description="What `topic` of GET /quiz (and `topics` of training) takes.")
    kind: Literal["theme", "section"] = Field(
        description="A theme (chain, damage-step, spell-speed, summon) or a document's top-level "
        "rule or section."
    )
    node: str | None = Field(description="The rule's or section's node id; null for a theme.")
    label_pt: str
    label_en: str = Field(description="A rule with no English title keeps its Portuguese one.")
    questions: int = Field(
        ge=1,
        description="Distinct questions on the topic in the format asked (in all without one).",
    )
    formats: list[str] = Field(description="Every format with questions on the topic.")


class QuizTopics(Closed):
    """`GET /quiz/topics` and `ygo-rulings quiz-topics --json`."""

    format: str | None
    topics: list[QuizTopic] = Field(
        description="The topics with questions in `format` (in any format when null), themes first."
    )


class QuizAnswer(BaseModel):
    """One answer: a question id from GET /quiz and an option key (or yes/no, true/false)."""

    id: str = Field(strict=True, description="The question id, as the quiz returned it.")
    answer: StrictStr | StrictBool | StrictInt = Field(
        description="An option key, its text, or true/false."
    )


class QuizCheckRequest(BaseModel):
    """The body of POST /quiz/check (and the input of `ygo-rulings quiz-check`)."""

    answers: list[QuizAnswer] = Field(
        json_schema_extra={"minItems": 1, "maxItems": MAX_ANSWERS},
        description=f"1 to {MAX_ANSWERS} answers.",
    )


class QuizResult(Closed):
    id: str
    correct: bool
    given: str = Field(description="The answer, read as an option key.")
    expected: str
    expected_text: str
    explanation: str
    machine_translated: bool = Field(description="The cited text is a machine translation.")
    citation: SourceSpan


class QuizCheck(Closed):
    """`POST /quiz/check` and `ygo-rulings quiz-check`."""

    total: int = Field(ge=1)
    correct: int = Field(ge=0)
    score: float = Field(ge=0, le=1, description="correct / total.")
    results: list[QuizResult]


# --- wiki pages (render as json) ----------------------------------------------------------------


class PageLink(Closed):
    text: str
    href: str = Field(description="A URL, or with `wiki` the wiki's page name.")
    wiki: bool = Field(description="A [[wikilink]] (links=wiki).")


class PageItem(Closed):
    text: str
    ref: int | None = Field(description="1-based index into `references`.")
    label: str | None
    link: PageLink | None
    children: list[PageItem]


class PagePart(Closed):
    heading: str
    items: list[PageItem]
    ordered: bool
    level: int = Field(ge=1, description="2 is a top-level heading.")


class Badge(Closed):
    format: str
    label: str


class PageReference(Closed):
    id: str
    name: str = Field(description="Its <ref name>: the same for the node on every page.")
    document: str = Field(description=DOC)
    document_title: str
    section: str = Field(description="The heading path above the cited text.")
    section_link: PageLink | None = Field(description="The page of its rule or section.")
    start: int = Field(ge=0, description=OFFSET)
    end: int = Field(ge=0, description=OFFSET + " Exclusive.")
    text: str = Field(description="The exact slice of the document.")
    permalink: str
    href: str = Field(description="Where it opens (links=local: the app's document view).")


class WikiPage(Closed):
    """`GET /rules/{id}?as=json`, `GET /cards/{id}?as=json` and `ygo-rulings render --as json`."""

    id: str
    kind: PageKind
    title: str
    subtitle: str | None
    badges: list[Badge]
    permalink: str
    url: str
    document: str | None = Field(description="The title of the document holding it.")
    source_ref: int | None = Field(description="1-based index of its own source reference.")
    facts: list[tuple[str, str]] = Field(description="(label, value) rows of a card's data.")
    lang: str = Field(
        description="The language of the card data's labels and values (pt or en); the "
        "documents' text stays Portuguese."
    )
    parts: list[PagePart]
    references: list[PageReference]
    home: str = Field(description="The app: / where the page is served, else the public base.")
    icon: str | None = Field(description="The favicon's address where the page is served.")
    alternates: list[PageLink] = Field(description="The page in the other markups (served).")


# --- the web page's views -----------------------------------------------------------------------


class OutlineRow(Closed):
    id: str
    type: OutlineType
    label: str
    label_en: str | None
    number: int | None = Field(description="A Rule's number.")
    depth: int = Field(ge=0)
    start: int | None = Field(description=OFFSET)
    end: int | None = Field(description=OFFSET + " Exclusive.")
    topics: list[str] = Field(description="Concept ids it is about, then those it mentions.")


class DocumentMeta(Closed):
    id: str = Field(description=DOC)
    title: str
    title_en: str | None
    format: str | None
    length: int = Field(ge=0, description="Characters in its source text.")


class DocumentSummary(DocumentMeta):
    outline: list[OutlineRow] = Field(description="Sections and Rules, in reading order.")


class Topic(Closed):
    id: str
    label_pt: str
    label_en: str
    count: int = Field(ge=1, description="Outline rows that cover it.")


class Documents(Closed):
    """`GET /documents`."""

    documents: list[DocumentSummary]
    topics: list[Topic]


class DocumentText(DocumentMeta):
    """`GET /documents/{doc}`: the text that citation offsets index."""

    text: str


class CatalogCard(Closed):
    id: str
    label_pt: str | None
    label_en: str | None
    card_type: str | None = Field(description="monster, spell or trap.")


class Catalog(Closed):
    """`GET /catalog`: every card, sorted by pt-BR name."""

    cards: list[CatalogCard]


class LayoutSentence(Closed):
    start: int = Field(ge=0, description=OFFSET)
    end: int = Field(ge=0, description=OFFSET + " Exclusive.")
    node: str = Field(description="The node whose span this is.")


class LayoutBlock(Closed):
    kind: Literal["heading", "paragraph", "item"]
    depth: int = Field(ge=0, description="A heading's depth (Sections or Rules above it).")
    start: int = Field(ge=0, description=OFFSET)
    end: int = Field(ge=0, description=OFFSET + " Exclusive.")
    sentences: list[LayoutSentence] = Field(description="The node spans inside, in order.")


class DocumentLayout(Closed):
    """`GET /documents/{doc}/layout`: reading blocks as offsets into the exact text."""

    id: str
    length: int = Field(ge=0, description="The text's length in characters.")
    blocks: list[LayoutBlock]


class ListMark(Closed):
    format: str = Field(description="A format with a Forbidden & Limited list.")
    status: Literal["forbidden", "limited", "semi-limited"]


class CatalogEntry(Closed):
    id: str
    name_en: str
    name_pt: str | None
    card_type: str = Field(description="monster, spell or trap.")
    property: str | None = Field(description="A Spell or Trap's property (normal, quick-play …).")
    attribute: str | None
    monster_classes: list[str] = Field(description="effect, fusion, synchro, union …")
    level: int | None
    rank: int | None
    link_rating: int | None
    lists: list[ListMark] = Field(
        description="Its status on each format's Forbidden & Limited list that names it (the "
        "page's badges); a card no list names has none."
    )


class CatalogPage(Closed):
    """`GET /catalog/page`: one page of the card table, by name match or alphabetically."""

    q: str | None = Field(description="The name searched; null lists every card by name.")
    type: str | None
    attribute: str | None
    format: str | None
    total: int = Field(ge=0, description="Cards matching the query and filters.")
    offset: int = Field(ge=0)
    limit: int = Field(ge=1)
    cards: list[CatalogEntry]


class NodeBrief(Closed):
    id: str
    type: NodeType
    label_pt: str | None
    label_en: str | None
    text: str | None = Field(description="A text node's exact text.")
    document: str | None = Field(description="The document holding its span.")
    start: int | None = Field(description=OFFSET)
    end: int | None = Field(description=OFFSET + " Exclusive.")
    section: str | None = Field(description="The Section or Rule holding it.")
    section_pt: str | None = Field(description="That heading in Portuguese.")
    section_en: str | None = Field(description="That heading in English.")
    document_title: str | None


class NodeBriefs(Closed):
    """`GET /briefs`: a few nodes' labels, text and place (for lists of related ids)."""

    nodes: list[NodeBrief]
    missing: list[str] = Field(description="Asked ids the graph does not hold.")


# --- errors -------------------------------------------------------------------------------------


class ErrorEnvelope(Closed):
    """Every HTTP error: `{"ok": false, "error": "...", "status": n, "code": "..."}` and a few
    extras. `error` is English; `code`, `field` and `params` let a client word it itself."""

    ok: Literal[False]
    error: str = Field(description="What was wrong, naming the offending parameter or value.")
    status: int = Field(ge=400, le=599, description="The HTTP status, repeated.")
    code: str = Field(
        description="A stable code for what was wrong: "
        + "; ".join(f"`{code}`: {text}" for code, text in ERROR_CODES.items()),
        json_schema_extra={"enum": list(ERROR_CODES)},
    )
    field: str | None = Field(
        default=None, description="The offending parameter (`question`, `k`, `answers.0.id` …)."
    )
    params: dict[str, str | int] | None = Field(
        default=None,
        description="The values the message names, by the code (`limit`, `length`, `min`, "
        "`max`, `value`, `what`, `key`, `line`, `column`, `seconds`, `position`).",
    )
    suggestions: list[str] | None = Field(
        default=None, description="404 for an unknown id or document: the closest ones."
    )
    available: list[str] | None = Field(
        default=None, description="406: the media types this resource offers."
    )
    line: int | None = Field(default=None, description="400 for malformed SPARQL: the line.")
    column: int | None = Field(default=None, description="400 for malformed SPARQL: the column.")
