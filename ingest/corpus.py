"""Reading the corpus directory: the manifest, the documents (strict UTF-8) and content hashes."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

import yaml

from kb.errors import IngestError
from kb.formats import Formats, parse_specs, with_documents

CURATED_FILES = ("cards.yaml", "glossary.yaml")


@dataclass(frozen=True)
class SourceDocument:
    """One corpus document as the manifest describes it, with its full text."""

    id: str
    file: str
    title_pt: str
    title_en: str
    language: str
    format: str
    topics: tuple[str, ...]
    text: str
    sha256: str
    parser: str | None = None  # an optional refinement registered for the document
    # The text is a machine translation: its wording may not be the official one (the quiz says so).
    machine_translated: bool = False


@dataclass(frozen=True)
class Manifest:
    """The corpus manifest: the declared formats and the documents, read and checked."""

    formats: Formats
    documents: list[SourceDocument]


# The code a build's content depends on: a change to a parser or the data model rebuilds the KB.
_KB = Path(__file__).resolve().parents[1] / "kb"
_BUILD_CODE = (
    *sorted((Path(__file__).resolve().parent).rglob("*.py")),
    # the sentence reader and its language data; the question reader is not part of a build
    *(
        _KB / "reading" / name
        for name in ("__init__.py", "language.py", "proposition.py", "reader.py")
    ),
    *(
        _KB / "reading" / name
        for name in ("relations.py", "negation.py", "lexicon.py", "senses.py")
    ),
    *sorted((_KB / "reading" / "senses").glob("*.yaml")),
    *sorted((_KB / "reading" / "lang").glob("*.yaml")),
    _KB / "reading" / "relations.yaml",
    *(_KB / "cards" / name for name in ("names.py", "nodes.py", "table.py", "banlist.py")),
    # the SPARQL store is written from the RDF export
    *(_KB / "linked_data" / name for name in ("rdf.py", "vocab.py")),
    *(
        _KB / name
        for name in ("model.py", "ids.py", "text.py", "link.py", "formats.py", "graph.py")
    ),
    _KB / "search" / "analysis.py",
)


def corpus_hash(corpus_dir: Path) -> str:
    """A hash over the manifest, every document, the curated tables and claims, and the ingest
    code (what a build depends on)."""
    h = hashlib.sha256()
    for code in _BUILD_CODE:
        if code.is_file():
            h.update(code.name.encode())  # by name: the hash does not depend on the checkout path
            h.update(hashlib.sha256(code.read_bytes()).digest())
    claims = corpus_dir / "claims"
    paths = [*corpus_dir.iterdir(), *(claims.iterdir() if claims.is_dir() else [])]
    for path in sorted(paths):
        if path.is_file() and path.suffix in (".txt", ".yaml"):
            h.update(path.relative_to(corpus_dir).as_posix().encode())
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def read_text(path: Path) -> str:
    """A corpus file's text; an IngestError names the file when it is missing, empty or not UTF-8."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise IngestError(str(path), "file not found") from exc
    except OSError as exc:
        raise IngestError(str(path), f"cannot read: {exc.strerror}") from exc
    if not raw.strip():
        raise IngestError(str(path), "file is empty")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise IngestError(str(path), f"not valid UTF-8 (byte {exc.start})", line) from exc


def load_manifest(corpus_dir: Path) -> Manifest:
    """The formats and documents listed in corpus/manifest.yaml, read and checked: an IngestError
    names the entry and the field (missing file, a file outside the corpus folder, unknown format,
    duplicate id, empty or non-UTF-8 or binary file)."""
    path = corpus_dir / "manifest.yaml"
    try:
        data = yaml.safe_load(read_text(path))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise IngestError(
            str(path), f"invalid YAML: {exc}", mark.line + 1 if mark else None
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get("documents"), list):
        raise IngestError(str(path), "expected a 'documents' list")
    try:
        specs = parse_specs(data.get("formats"), "manifest")
    except ValueError as exc:
        raise IngestError(str(path), str(exc)) from exc
    known = {s.id for s in specs}
    docs: list[SourceDocument] = []
    seen: set[str] = set()
    for i, item in enumerate(data["documents"], start=1):
        if not isinstance(item, dict):
            raise IngestError(str(path), f"document #{i} must be a mapping")
        name = f"document {item.get('id')!r}" if item.get("id") else f"document #{i}"
        missing = [
            k
            for k in ("id", "file", "title_pt", "title_en", "language", "format")
            if not item.get(k)
        ]
        if missing:
            raise IngestError(str(path), f"{name} lacks {', '.join(missing)}")
        doc_id = str(item["id"])
        if not _DOC_ID.match(doc_id):
            raise IngestError(
                str(path), f"{name}: id must be kebab-case (a-z, 0-9, -), got {doc_id!r}"
            )
        if doc_id in seen:
            raise IngestError(str(path), f"duplicate document id {doc_id!r} (field id)")
        if item["format"] not in known:
            raise IngestError(
                str(path),
                f"{name}: unknown format {item['format']!r} (field format; declared: "
                f"{', '.join(sorted(known))})",
            )
        seen.add(doc_id)
        file = corpus_file(corpus_dir, item["file"], name, path)
        if not file.is_file():
            raise IngestError(
                str(path), f"{name}: field file names a missing file {item['file']!r}"
            )
        text = read_text(file)
        if "\x00" in text:
            raise IngestError(str(file), f"{name}: a binary file, not text (field file)")
        topics = item.get("topics") or ()
        if not isinstance(topics, list | tuple):
            raise IngestError(str(path), f"{name}: field topics must be a list")
        parser = item.get("parser")
        machine = item.get("machine_translated", False)
        if not isinstance(machine, bool):
            raise IngestError(
                str(path),
                f"{name}: field machine_translated must be true or false, got {machine!r}",
            )
        docs.append(
            SourceDocument(
                id=doc_id,
                file=str(item["file"]),
                title_pt=str(item["title_pt"]),
                title_en=str(item["title_en"]),
                language=str(item["language"]),
                format=str(item["format"]),
                topics=tuple(str(t) for t in topics),
                text=text,
                sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                parser=str(parser) if parser else None,
                machine_translated=machine,
            )
        )
    formats = with_documents(specs, {d.id: d.format for d in docs})
    return Manifest(formats, docs)


def corpus_file(corpus_dir: Path, value: object, name: str, manifest: Path) -> Path:
    """The document file a manifest entry's `file` names, which must lie inside the corpus folder:
    a relative path that neither climbs out with `..` nor goes out through a symlink (the server
    publishes every document's text at /documents/{id}). An IngestError names the entry."""
    text = str(value)
    where = f"{name}: field file {text!r}"
    if not isinstance(value, str) or "\x00" in text:
        raise IngestError(str(manifest), f"{where} must be a relative path (a string)")
    if PurePosixPath(text).is_absolute() or PureWindowsPath(text).anchor:
        raise IngestError(
            str(manifest), f"{where} is an absolute path; name a file inside the corpus folder"
        )
    root = corpus_dir.resolve()
    target = (corpus_dir / text).resolve()
    if not target.is_relative_to(root):
        how = "through a symlink" if ".." not in PurePosixPath(text).parts else "with '..'"
        raise IngestError(
            str(manifest),
            f"{where} leads outside the corpus folder ({how}); name a file inside it",
        )
    return corpus_dir / text


_DOC_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
