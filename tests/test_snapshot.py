"""Snapshots of the service's built parts (kb.snapshot): written by a server's start, read by the
next start over the same build, code and settings, never read when damaged or made by anything
else."""

from __future__ import annotations

import functools
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests_support import running_server

from api.runtime import load_runtime, save_snapshot
from kb import snapshot
from kb.config import SERVING_ONLY, Settings, parts_settings
from kb.service import RulingsService

QUESTIONS = (
    "Julgamento Solene pode negar a Invocação do Dragão Cibernético?",
    "Can I chain Mystical Space Typhoon to Pot of Greed?",
    "In Edison, does the player going first draw?",
)


class Counter:
    """An object with a remembered method, like the card index's."""

    def __init__(self, helper: object) -> None:
        self.helper = helper
        self.calls = 0
        self.double = functools.lru_cache(maxsize=8)(self._double)

    def _double(self, x: int) -> int:
        self.calls += 1
        return 2 * x


def test_a_snapshot_reads_back_with_live_objects_and_empty_memories(tmp_path: Path) -> None:
    live, later = object(), object()
    counter = Counter(live)
    counter.double(4)
    path = tmp_path / "snap-a.pickle"
    snapshot.write(
        path,
        {"n": 1, "helper": live},
        {"counter": counter, "later": later},
        {"live": live, "later": later},
    )
    other_live, other_later = object(), object()
    found = snapshot.read(path, {"live": other_live}, lambda head: {"later": other_later})
    assert found is not None
    head = found.head
    assert head["n"] == 1 and head["helper"] is other_live
    assert found.parts == ("counter", "later")
    restored = found.part("counter")
    assert restored.helper is other_live and found.part("later") is other_later
    assert restored.double.cache_info().currsize == 0
    assert restored.double.cache_parameters()["maxsize"] == 8
    assert restored.double(5) == 10 and restored.double(5) == 10 and restored.calls == 2


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty"])
def test_a_damaged_snapshot_is_not_read_and_is_removed(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "snap-b.pickle"
    snapshot.write(path, {"a": list(range(1000))}, {"b": "x" * 1000}, {})
    raw = bytearray(path.read_bytes())
    if damage == "flip":
        raw[len(raw) // 4] ^= 0xFF
    elif damage == "truncate":
        raw = raw[: len(raw) - 10]
    else:
        raw = bytearray()
    path.write_bytes(bytes(raw))
    assert snapshot.read(path, {}, lambda head: {}) is None
    assert not path.exists()


def test_a_damaged_part_is_none_and_removes_the_snapshot(tmp_path: Path) -> None:
    """The head reads back; a part whose section is damaged is not read (the caller builds
    it) and the file goes; a part never asked for is never read."""
    path = tmp_path / "snap-d.pickle"
    snapshot.write(path, {"a": 1}, {"first": "x" * 1000, "second": "y" * 1000}, {})
    raw = bytearray(path.read_bytes())
    raw[-10] ^= 0xFF  # inside the last section
    path.write_bytes(bytes(raw))
    found = snapshot.read(path, {}, lambda head: {})
    assert found is not None and found.head == {"a": 1}
    assert found.part("first") == "x" * 1000 and path.exists()
    assert found.part("second") is None and not path.exists()
    assert found.part("missing") is None


def test_a_part_pointing_at_another_reads_that_one_first_and_shares_it(tmp_path: Path) -> None:
    path = tmp_path / "snap-e.pickle"
    shared = ["linker"]
    head = {"graph": ["g"], "vectors": (["v0"], ["v1"], None), "n": 3}
    parts = {"linker": shared, "index": {"linker": shared, "v": head["vectors"][1], "none": None}}
    snapshot.write(path, head, parts, {})
    found = snapshot.read(path, {}, lambda head: {})
    assert found is not None
    index = found.part("index")
    assert index["linker"] is found.part("linker") and index["linker"] == ["linker"]
    assert index["v"] is found.head["vectors"][1] and index["none"] is None


def test_a_snapshot_naming_a_live_object_not_given_is_not_read(tmp_path: Path) -> None:
    live = object()
    path = tmp_path / "snap-c.pickle"
    snapshot.write(path, {"x": live}, {}, {"live": live})
    assert snapshot.read(path, {}, lambda head: {}) is None


def test_only_the_newest_snapshots_are_kept(tmp_path: Path) -> None:
    for n in range(4):
        path = tmp_path / f"{snapshot.PREFIX}{n}{snapshot.SUFFIX}"
        snapshot.write(path, n, {}, {})
        os.utime(path, (time.time() - 10 + n, time.time() - 10 + n))
    kept = sorted(p.name for p in tmp_path.glob(f"{snapshot.PREFIX}*"))
    assert kept == [f"{snapshot.PREFIX}{n}{snapshot.SUFFIX}" for n in (2, 3)]
    # the one just written stays, whatever its time
    os.utime(tmp_path / f"{snapshot.PREFIX}3{snapshot.SUFFIX}", (time.time() + 99,) * 2)
    snapshot.write(tmp_path / f"{snapshot.PREFIX}4{snapshot.SUFFIX}", 4, {}, {})
    kept = sorted(p.name for p in tmp_path.glob(f"{snapshot.PREFIX}*"))
    assert kept == [f"{snapshot.PREFIX}{n}{snapshot.SUFFIX}" for n in (3, 4)]


def test_the_key_changes_with_the_build_the_embedder_the_settings_and_the_code(
    tmp_path: Path,
) -> None:
    key = snapshot.snapshot_key("build", "embedder", "settings")
    assert key == snapshot.snapshot_key("build", "embedder", "settings")
    assert (
        len(
            {
                key,
                *(
                    snapshot.snapshot_key(*args)
                    for args in (
                        ("other", "embedder", "settings"),
                        ("build", "other", "settings"),
                        ("build", "embedder", "other"),
                    )
                ),
            }
        )
        == 4
    )
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text("X = 1\n")
    first = snapshot.code_digest.__wrapped__(package)
    (package / "data.yaml").write_text("word: palavra\n")
    second = snapshot.code_digest.__wrapped__(package)
    (package / "a.py").write_text("X = 2\n")
    assert len({first, second, snapshot.code_digest.__wrapped__(package)}) == 3


def test_serving_settings_are_not_part_of_the_name_and_the_others_are() -> None:
    base = Settings()
    assert parts_settings(replace(base, port=9999, answer_cache=0)) == parts_settings(base)
    assert parts_settings(replace(base, weight_dense=base.weight_dense + 1)) != parts_settings(base)
    assert "claim_min_score" not in SERVING_ONLY


def settings_for(data: Path) -> Settings:
    return Settings(data_dir=data, embedder="hash", log_json=False)


def answers(service: RulingsService) -> list[Any]:
    out = [service.ask(q) for q in QUESTIONS]
    out += [service.search(q, k=5) for q in QUESTIONS]
    out.append(service.cards("Jinzo", k=3))
    out.append(service.quiz(n=3, seed=4))
    return out


def test_a_service_read_from_its_snapshot_answers_as_the_one_built(data_copy: Path) -> None:
    s = settings_for(data_copy)
    built = load_runtime(s).service
    built.warm(everything=True)
    path = save_snapshot(built, s)
    assert path is not None and path.parent == data_copy / "cache"
    assert save_snapshot(built, s) is None  # written once per build, code and settings

    restored = load_runtime(s, warm=False).service
    found = vars(restored)["_snapshot"]
    assert found.parts == RulingsService.PARTS  # nothing left to build
    # a part is read on first use, with the parts it points at, and not before
    assert not set(vars(restored)) & set(RulingsService.PARTS)
    restored.ask(QUESTIONS[2])
    assert restored.answerer.index is restored.index and restored.index.linker is restored.linker
    assert not {"card_service", "question_bank"} & set(vars(restored))
    assert restored.embedder is built.embedder or type(restored.embedder) is type(built.embedder)
    assert answers(restored) == answers(built)

    # a serving setting reads the same snapshot; a setting of the parts builds them again
    served = load_runtime(replace(s, port=1234, answer_cache=0), warm=False).service
    assert "_snapshot" in vars(served)
    other = load_runtime(replace(s, claim_min_score=s.claim_min_score + 0.01), warm=False)
    assert "_snapshot" not in vars(other.service)


def test_no_snapshot_is_read_or_written_when_they_are_off(data_copy: Path) -> None:
    s = replace(settings_for(data_copy), snapshots=False)
    service = load_runtime(s).service
    assert save_snapshot(service, s) is None
    assert not list((data_copy / "cache").glob("snap-*"))


def test_a_server_writes_its_snapshot_and_the_next_start_reads_it(data_copy: Path) -> None:
    env = {"YGO_SNAPSHOTS": "1"}
    with running_server(data_copy, env) as base:
        first = [httpx.get(base + "/ask", params={"q": q}).json() for q in QUESTIONS]
        deadline = time.monotonic() + 60
        while not list((data_copy / "cache").glob("snap-*")) and time.monotonic() < deadline:
            time.sleep(0.2)
    (path,) = (data_copy / "cache").glob("snap-*")
    with running_server(data_copy, env) as base:
        second = [httpx.get(base + "/ask", params={"q": q}).json() for q in QUESTIONS]
    assert strip(second) == strip(first)
    # damaged: the server starts, builds the parts and writes the snapshot again
    raw = bytearray(path.read_bytes())
    raw[100] ^= 0xFF
    path.write_bytes(bytes(raw))
    with running_server(data_copy, env) as base:
        third = [httpx.get(base + "/ask", params={"q": q}).json() for q in QUESTIONS]
    assert strip(third) == strip(first)


def strip(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Answers without what differs between two runs of the same server (request ids, times)."""
    return [
        {
            k: v
            for k, v in a.items()
            if k in ("verdict", "confidence", "citations", "reasoning", "answer")
        }
        for a in answers
    ]


def test_a_command_that_neither_searches_nor_answers_reads_the_snapshot(data_copy: Path) -> None:
    """`cards`, `deck`, `stats`: without a snapshot the command loads the build; with one it
    reads the head and the card index from it, and answers the same."""
    from api.cli import load_service

    s = settings_for(data_copy)
    loaded = load_service(s)
    assert "_snapshot" not in vars(loaded)
    built = load_runtime(s).service
    built.warm(everything=True)
    assert save_snapshot(built, s) is not None
    restored = load_service(s)
    assert "_snapshot" in vars(restored)
    assert restored.cards("Jinzo", k=3) == loaded.cards("Jinzo", k=3)
    assert restored.stats() == loaded.stats()
    assert not {"linker", "index", "answerer"} & set(vars(restored))  # never read
    off = load_service(replace(s, snapshots=False))
    assert "_snapshot" not in vars(off)
    # a model it cannot open, or one not prepared: the build, never a failure or a preparation
    for other in (
        replace(s, embedder="no-such-runner"),
        replace(s, embedder="onnx", model=data_copy / "no-model"),
    ):
        unread = load_service(other)
        assert "_snapshot" not in vars(unread)
        assert unread.cards("Jinzo", k=3) == loaded.cards("Jinzo", k=3)
