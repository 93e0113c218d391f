"""BM25 over the passages: bm25s builds the index, the index scores queries on its own arrays,
with exactly bm25s' scores, and a process that reads a built index never imports bm25s."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import bm25s
import numpy as np

from kb.evaluation import read_jsonl
from kb.search.analysis import analyse
from kb.search.lexical import BM25Index

REPO = Path(__file__).resolve().parents[2]


def corpus_lines() -> list[str]:
    return [
        line
        for path in sorted((REPO / "corpus").glob("*.txt"))
        for line in path.read_text("utf-8").splitlines()
        if line.strip()
    ]


def test_scores_are_bm25s_own_on_every_evaluation_question() -> None:
    texts = corpus_lines()
    index = BM25Index(texts)
    reference = bm25s.BM25()
    reference.index([analyse(t) or ["_empty_"] for t in texts], show_progress=False)
    queries = [
        str(item["q"])
        for path in sorted((REPO / "tests" / "data").glob("*.jsonl"))
        for item in read_jsonl(path)
        if "q" in item
    ]
    assert len(queries) > 1000
    for query in [*queries, "", "palavra-que-nenhum-documento-tem", "corrente corrente corrente"]:
        terms = analyse(query)
        known = [t for t in terms if t in reference.vocab_dict]
        want = reference.get_scores(known) if known else np.zeros(len(texts), np.float32)
        assert np.array_equal(index.scores(terms), np.asarray(want, np.float32)), query


def test_a_read_index_scores_without_importing_bm25s(tmp_path: Path) -> None:
    index = BM25Index(["o elo 1 resolve por último", "a corrente resolve do último elo"])
    path = tmp_path / "index.pickle"
    path.write_bytes(pickle.dumps(index))
    code = (
        "import pickle, sys\n"
        f"index = pickle.loads(open({str(path)!r}, 'rb').read())\n"
        "scores = index.scores(['elo', 'ultim'])\n"
        "assert scores[0] > 0 and scores.shape == (2,)\n"
        "assert 'bm25s' not in sys.modules and 'scipy' not in sys.modules, 'imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
