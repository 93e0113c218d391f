"""Card data importers: the whole card database as the card-facts table (`kb.cards.table`).

Readers of public formats (`sqlite_source`, `yaml_yugi`, `ygoprodeck`, `lflist`), the merge of
their drafts (`merge`), the mechanics inferred from card texts (`effects`, `mechanics`,
`lexicon`), the check against the curated table (`agreement`), the atomic import and the download
(`importer`) and the regeneration of the committed table (`regenerate`, `python -m
ingest.carddata`).
"""

from ingest.carddata.importer import FORMATS, ImportReport, detect_format, fetch_cards, import_cards

__all__ = ["FORMATS", "ImportReport", "detect_format", "fetch_cards", "import_cards"]
