"""The whole-graph JSON-LD download, compacted (kb.linked_data.jsonld), written with the build.

Oxigraph's own JSON-LD writer only writes expanded JSON-LD, so `/export.jsonld` is written here
from the same triples the store is loaded from (kb.linked_data.rdf.graph_triples): grouped by
subject, in @id order, compacted one subject at a time and streamed to a temporary file renamed
into place. Reading them back from the store took longer than making them again.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kb.linked_data.jsonld import by_subject, write_compact


def write_compacted(triples: Iterable[tuple[Any, Any, Any]], target: Path, base_iri: str) -> Path:
    """The triples as compacted JSON-LD (the served @context) at `target`, written to a
    temporary name then renamed."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}-tmp-", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            write_compact(by_subject(triples), out, base_iri)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target
