"""The mapped lemma tables (kb.adapters.lemma_table): the same lemmas as simplemma's dictionaries,
written once, rewritten when damaged, in memory where the cache cannot be written."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import simplemma
from simplemma.strategies import DefaultDictionaryFactory

import kb.reading.language as language
from kb.adapters.lemma_table import LemmaTable, LemmaTables, table_path, write_table

PAIRS = {"cartas": "carta", "carta": "carta", "ativou": "ativar", "ação": "ação", "b": "a"}


def test_a_table_reads_back_every_pair_and_nothing_else(tmp_path: Path) -> None:
    pairs = {**PAIRS, "com\ttab": "x", "a": "um\nlinha"}
    table = LemmaTable(write_table(tmp_path / "t.bin", pairs))
    assert dict(table.items()) == PAIRS  # a pair with a tab or a newline is left out
    assert len(table) == len(PAIRS) and sorted(table) == sorted(PAIRS)
    assert table.get("cart") is None and table.get("cartass") is None and table.get("") is None
    with pytest.raises(KeyError):
        table["z"]


@pytest.mark.parametrize("damage", ["cut short", "empty", "only the magic", "foreign"])
def test_a_damaged_table_is_refused_then_rewritten(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = write_table(tmp_path / "t.bin", PAIRS)
    damaged = {
        "cut short": path.read_bytes()[:-3],
        "empty": b"",
        "only the magic": b"YGOLEMM1",
        "foreign": b"not a table at all, no",
    }
    path.write_bytes(damaged[damage])
    with pytest.raises(ValueError):
        LemmaTable(path)
    table_path(tmp_path, "en").write_bytes(path.read_bytes())
    with caplog.at_level(logging.WARNING):
        table = LemmaTables(tmp_path).get_dictionary("en")
    assert "rewriting the lemma table" in caplog.text
    assert isinstance(table, LemmaTable) and table.get("cards") == "card"


def test_a_folder_that_cannot_be_written_keeps_simplemmas_dictionary(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be")
    with caplog.at_level(logging.WARNING):
        table = LemmaTables(blocked / "cache").get_dictionary("en")
    assert "in memory" in caplog.text and table.get("cards") == "card"


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> LemmaTables:
    return LemmaTables(tmp_path_factory.mktemp("cache"))


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_tables_hold_simplemmas_dictionaries(tables: LemmaTables, lang: str) -> None:
    shipped = DefaultDictionaryFactory(cache_max_size=0).get_dictionary(lang)
    table = tables.get_dictionary(lang)
    assert len(table) == len(shipped)
    words = list(shipped)[::97]
    assert [table.get(w) for w in words] == [shipped.get(w) for w in words]


def test_the_reader_lemmatizes_as_simplemma_does(
    tables: LemmaTables, monkeypatch: pytest.MonkeyPatch
) -> None:
    words = {
        "pt": "ativou ativam encadeado negaria cartas invocações destruída compra pode podem",
        "en": "activated chains negated cards summons destroyed drawing can't players",
    }
    monkeypatch.setattr(language, "_lemmatizer_in_use", None)
    expected = {
        (w, lang): simplemma.lemmatize(w, lang=lang) for lang in words for w in words[lang].split()
    }
    language.use_lemma_dictionaries(tables)
    assert language._lemmatizer_in_use is not None
    assert {(w, lang): language._lemma(w, lang) for (w, lang) in expected} == expected
