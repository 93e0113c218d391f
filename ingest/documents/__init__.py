"""The document registry: optional refinements for the documents the corpus knows by name.

Any document is ingested by the default parser from its manifest entry alone. A document may name a
refinement here (`parser: <name>` in its manifest entry): a bespoke parser that reads its layout
more precisely, and/or an extractor of the typed facts that only its wording states. These modules
are the only code that names a document or matches its sentences; everything else finds rules
through the graph (concepts, formats, facts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ingest.documents.edison import parse_edison
from ingest.documents.edison_facts import extract_edison
from ingest.documents.rulings import parse_rulings
from ingest.documents.rulings_facts import extract_rulings
from ingest.documents.tag import parse_tag
from ingest.extract import Extractor
from kb.model import ParsedDocument

Parser = Callable[[str, str, str, str], ParsedDocument]


@dataclass(frozen=True)
class Refinement:
    """What a registered document adds over the default parser and extraction."""

    parse: Parser | None = None
    extract: Extractor | None = None


REFINEMENTS: dict[str, Refinement] = {
    "edison": Refinement(parse_edison, extract_edison),
    "rulings": Refinement(parse_rulings, extract_rulings),
    "tag": Refinement(parse_tag, None),
}
