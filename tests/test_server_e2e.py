"""End to end: the real `ygo-rulings serve` process on loopback, queried over HTTP."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests_support import running_server  # type: ignore[import-not-found]

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(built: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`ygo-rulings serve` over a copy of the session's build."""
    data = tmp_path_factory.mktemp("serve-data") / "data"
    shutil.copytree(built.data_dir, data, symlinks=True)
    with running_server(data, start_timeout=120) as base:
        yield base


def test_served_search_ask_and_errors(server: str) -> None:
    hits = httpx.get(server + "/search", params={"q": "Jinzo", "k": 2}).json()["hits"]
    assert len(hits) == 2
    answer = httpx.post(
        server + "/ask", json={"question": "Can Divine Wrath negate Cyber Dragon's summon?"}
    ).json()
    assert answer["verdict"] == "no"
    bad = httpx.get(server + "/search", params={"q": "", "k": 3})
    assert bad.status_code == 422 and bad.json()["ok"] is False
    missing = httpx.get(server + "/id/card/no-such-card")
    assert missing.status_code == 404
