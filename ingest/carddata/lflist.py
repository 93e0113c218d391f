"""Reader of EDOPro/YGOPro `lflist.conf` files: card pools and Forbidden & Limited lists.

The format, line by line: `#[A] [B]` names the lists of the file (a comment), `!name` starts a
list, `$whitelist` makes the current list a whitelist (only the listed cards are legal: a card
pool), `password count --comment` gives a card's allowed copies (0 forbidden, 1 limited,
2 semi-limited, 3 unlimited; -1 in some files for "not in the pool"), `--Key value` lines
(`--StartDate`) and `#` lines are comments. Blank lines are ignored.
"""

from __future__ import annotations

import re
from pathlib import Path

from ingest.carddata.draft import LimitEntry, LimitList
from kb.errors import IngestError

_ENTRY = re.compile(r"^(\d+)\s+(-?\d+)\s*(?:--\s*(.*?))?\s*$")


def looks_like_lflist(text: str) -> bool:
    """A file whose first meaningful line starts a list (`!name`)."""
    for line in text.splitlines():
        s = line.strip().lstrip("\ufeff")
        if not s or s.startswith("#") or s.startswith("--"):
            continue
        return s.startswith("!")
    return False


def read_lflist(path: Path) -> list[LimitList]:
    """The lists of an lflist.conf file, in file order."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(str(path), f"not valid UTF-8 at byte {exc.start}") from exc
    except OSError as exc:
        raise IngestError(str(path), f"cannot read: {exc.strerror}") from exc
    return parse_lflist(text, str(path))


def parse_lflist(text: str, source: str) -> list[LimitList]:
    """Parse lflist.conf text; IngestError names the line of a bad or duplicate entry."""
    lists: list[LimitList] = []
    name: str | None = None
    whitelist = False
    entries: list[LimitEntry] = []
    seen: dict[int, int] = {}

    def close() -> None:
        if name is not None:
            lists.append(LimitList(name, source, whitelist, tuple(entries)))

    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip().lstrip("\ufeff")
        if not line or line.startswith("#") or line.startswith("--"):
            continue
        if line.startswith("!"):
            close()
            name, whitelist, entries, seen = line[1:].strip(), False, [], {}
            if not name:
                raise IngestError(source, "a list header '!' without a name", n)
            continue
        if name is None:
            raise IngestError(source, f"{line[:40]!r} before the first '!name' list header", n)
        if line.lower() == "$whitelist":
            whitelist = True
            continue
        if line.startswith("$"):
            continue  # other directives (e.g. $genesys) do not change pools or limits
        m = _ENTRY.match(line)
        if not m:
            raise IngestError(source, f"expected 'password count --name', got {line[:60]!r}", n)
        password, count = int(m.group(1)), int(m.group(2))
        if count < -1 or count > 3:
            raise IngestError(source, f"password {password}: count {count} is not -1..3", n)
        if password in seen:
            raise IngestError(
                source,
                f"duplicate entry {password} in list {name!r} (first at line {seen[password]})",
                n,
            )
        seen[password] = n
        entries.append(LimitEntry(password, count, (m.group(3) or "").strip(), n))
    close()
    if not lists:
        raise IngestError(source, "no '!name' list in the file (not an lflist.conf)")
    return lists
