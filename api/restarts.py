"""Worker restarts, counted by `serve --workers N`'s supervisor where its workers can read them.

The supervisor forks its workers after it made the counter: the counter is an anonymous shared
memory page (`mmap(-1, …)` is MAP_SHARED on Linux), so what the supervisor writes after a fork is
what every worker's `/health` and `/metrics` read. One writer (the supervisor), 8 aligned bytes.
A server of one process (`--workers 1`) has no supervisor: its count stays 0.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

_FORMAT = "Q"


class RestartCount:
    """How many workers the supervisor has started again since the server started."""

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, struct.calcsize(_FORMAT))

    def add(self) -> None:
        """Count one restart (the supervisor only)."""
        struct.pack_into(_FORMAT, self._page, 0, self.value() + 1)

    def value(self) -> int:
        return int(struct.unpack_from(_FORMAT, self._page, 0)[0])


class RestartCollector(Collector):
    """`ygo_worker_restarts_total`, read from the shared count on every scrape."""

    def __init__(self, count: RestartCount) -> None:
        self.count = count

    def collect(self) -> Iterator[CounterMetricFamily]:
        yield CounterMetricFamily(
            "ygo_worker_restarts",
            "Workers `serve --workers N` started again after one exited (crashed or killed).",
            value=self.count.value(),
        )
