"""`python -m ingest.carddata FOLDER --out corpus/carddb/cards.tsv`: regenerate the card table.

Reads FOLDER/cards_en_pt.sqlite and FOLDER/yaml-yugi-edison/, writes the table and, beside it,
agreement.md (the inferred mechanics against corpus/cards.yaml). Exit status 1 with "Error: …"
on bad input; nothing is written then.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ingest.carddata.regenerate import regenerate
from kb.errors import KBError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ingest.carddata", description=__doc__)
    parser.add_argument("folder", type=Path, help="the card-data folder (../shared/carddata)")
    parser.add_argument("--out", type=Path, default=Path("corpus/carddb/cards.tsv"))
    parser.add_argument("--corpus", type=Path, default=Path("corpus"), help="for cards.yaml")
    parser.add_argument("--date", default=None, help="the `generated` date (default: today)")
    parser.add_argument("--report", type=Path, default=None, help="default: OUT's agreement.md")
    args = parser.parse_args(argv)
    command = f"python -m ingest.carddata {args.folder} --out {args.out}"
    try:
        result = regenerate(
            args.folder, args.out, args.corpus, command=command, today=args.date, report=args.report
        )
    except KBError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    r = result.report
    agreement = r.agreement["agreement"]
    print(
        f"wrote {r.table}: {r.cards} cards ({r.with_pt_and_en} with pt and en names), "
        f"card pool {r.edison_pool}, 2010-03-01 list {r.tcg_2010_03}; agreement with the "
        f"curated table: {agreement} ({r.agreement['disagreements']} disagreements)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
