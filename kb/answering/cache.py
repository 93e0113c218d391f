"""A bounded, thread-safe least-recently-used cache of answers.

An answer is a pure function of (question, format, k) over one build, so a repeated question can
skip embedding and reasoning. The cache hands out deep copies: a caller that changes what it got
cannot change what the next caller gets.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any

AnswerKey = tuple[str, str | None, int, str | None]


def answer_key(question: str, fmt: str | None, k: int, build_id: str | None) -> AnswerKey:
    """The cache key of a checked question (format and k already validated).

    The question is kept exactly as asked: an answer echoes it and gives entity spans as offsets
    into it, so two spellings of a question are two answers. The format is normalised by the
    service's checks (an empty format is no format)."""
    return (question, fmt or None, k, build_id)


class AnswerCache:
    """At most `size` answers, the least recently used dropped first; size 0 keeps none."""

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ValueError(f"answer cache size must be 0 or more, got {size}")
        self.size = size
        self._items: OrderedDict[AnswerKey, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: AnswerKey) -> dict[str, Any] | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
        return copy.deepcopy(item)

    def put(self, key: AnswerKey, answer: dict[str, Any]) -> None:
        if self.size == 0:
            return
        item = copy.deepcopy(answer)
        with self._lock:
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
