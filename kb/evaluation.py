"""Evaluation of retrieval (Recall@k, MRR per ranker and fused) over a JSONL query set."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from kb.errors import InvalidQuery
from kb.search.index import SearchIndex, SearchOptions


class HasIndex(Protocol):
    index: SearchIndex


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Objects of a JSONL file; a bad line is an error naming the file and line."""
    try:
        lines = path.read_text("utf-8").splitlines()
    except OSError as exc:
        raise InvalidQuery("file", f"cannot read {path}: {exc.strerror}") from exc
    items = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidQuery("file", f"{path}:{i}: not JSON ({exc.msg})") from exc
        if not isinstance(item, dict):
            raise InvalidQuery("file", f"{path}:{i}: expected an object")
        items.append(item)
    return items


def ranking_metrics(ranked: list[list[str]], relevant: list[set[str]]) -> dict[str, float]:
    r1 = r5 = rr = 0.0
    for got, rel in zip(ranked, relevant, strict=True):
        first = next((i for i, g in enumerate(got) if g in rel), None)
        if first is not None:
            rr += 1.0 / (first + 1)
            r1 += first < 1
            r5 += first < 5
    n = max(len(ranked), 1)
    return {"recall@1": r1 / n, "recall@5": r5 / n, "mrr": rr / n, "n": len(ranked)}


def evaluate_search(service: HasIndex, items: list[dict[str, Any]]) -> dict[str, Any]:
    """Each ranker alone and the fused ranking, overall and by language / kind."""
    index = service.index
    known = set(index.position)
    per: dict[str, list[list[str]]] = defaultdict(list)
    relevant: list[set[str]] = []
    groups: dict[str, list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        rel = set(item.get("relevant") or [])
        if not item.get("q") or not rel:
            raise InvalidQuery("file", f"item {item.get('id', i)} needs 'q' and 'relevant'")
        unknown = rel - known
        if unknown:
            raise InvalidQuery(
                "file", f"item {item.get('id', i)} names unknown ids {sorted(unknown)}"
            )
        relevant.append(rel)
        q = str(item["q"])
        mentions = index.linker.link(q, fuzzy=True)
        entities = [m.entity for m in mentions if not m.entity.startswith("format/")]
        scores = {
            "dense": index.dense_scores(q),
            "lexical": index.lexical.scores(index.expand(q, mentions)),
            "graph": index.graph_scores(entities),
        }
        for name, s in scores.items():
            order = [int(j) for j in np.argsort(-s, kind="stable")[:10] if s[j] > 0]
            per[name].append([index.units[j].id for j in order])
        hits = index.search(q, SearchOptions(k=10), mentions)
        per["fused"].append([h.node.id for h in hits])
        for key in ("lang", "kind"):
            if item.get(key):
                groups[f"{key}={item[key]}"].append(i)
    result = {
        "queries": len(items),
        "rankers": {name: ranking_metrics(r, relevant) for name, r in per.items()},
        "by_group": {
            g: ranking_metrics([per["fused"][i] for i in idx], [relevant[i] for i in idx])
            for g, idx in sorted(groups.items())
        },
    }
    return result


class Answers(Protocol):
    def ask(self, question: str, format: str | None = None, k: int = 5) -> dict[str, Any]: ...


def evaluate_answers(service: Answers, items: list[dict[str, Any]]) -> dict[str, Any]:
    """Verdict accuracy on yes/no items, cite hit@3, out-of-scope accuracy, per topic."""
    from kb.ids import fold

    rows = []
    for item in items:
        result = service.ask(str(item["q"]), format=item.get("format") or None, k=5)
        expected = item.get("verdict")
        topic = str(item.get("topic", "?"))
        oos = topic == "out-of-scope"
        cite = str(item.get("cite") or "")
        texts = [c["text"] for c in result["citations"][:3]]
        answer = fold(result["answer"])
        rows.append(
            {
                "id": item.get("id"),
                "topic": topic,
                "yes_no": expected in ("yes", "no"),
                "verdict_ok": result["verdict"] == expected,
                "oos": oos,
                "cited": bool(cite),
                "cite_ok": bool(cite) and any(cite in t or t in cite for t in texts),
                "contains_ok": any(fold(c) in answer for c in item.get("contains") or []),
                "got": result["verdict"],
                "expected": expected,
            }
        )

    def summary(rs: list[dict[str, Any]]) -> dict[str, Any]:
        yn = [r for r in rs if r["yes_no"]]
        ci = [r for r in rs if r["cited"]]
        oo = [r for r in rs if r["oos"]]
        return {
            "n": len(rs),
            "yes_no": len(yn),
            "verdict_accuracy": sum(r["verdict_ok"] for r in yn) / max(len(yn), 1),
            "cited": len(ci),
            "cite_hit3": sum(r["cite_ok"] for r in ci) / max(len(ci), 1),
            "oos": len(oo),
            "oos_accuracy": sum(r["got"] is None for r in oo) / max(len(oo), 1),
            "contains": sum(r["contains_ok"] for r in rs) / max(len(rs), 1),
        }

    topics: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        topics[r["topic"]].append(r)
    return {
        "overall": summary(rows),
        "topics": {t: summary(rs) for t, rs in sorted(topics.items())},
        "failures": [
            r
            for r in rows
            if (r["yes_no"] and not r["verdict_ok"]) or (r["oos"] and r["got"] is not None)
        ],
    }
