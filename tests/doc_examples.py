"""The runnable examples of README.md and docs/*.md, read from their Markdown (no I/O but reading).

The convention (also in docs/development.md):

- A fenced block whose info string is ``sh`` holds commands that are run: ``ygo-rulings …`` (also
  ``.venv/bin/ygo-rulings …``) and ``curl … http://127.0.0.1:8000/…``, each optionally after
  ``NAME=value`` environment assignments, lines joined by a trailing backslash. Any other command
  in such a block is an error until the block is marked (below).
- A fenced block whose info string is ``sparql`` is a query run on ``GET /sparql`` (as CSV).
- ``<!-- no-test: why -->`` on the line before a fence opts that block out, saying why.
- A command's documented output is the ``#`` comment lines that follow it in its block, or, for
  the last command of a block, the fenced block right after it (nothing but blank lines between).
  Each output line must occur in the real output (whitespace runs compared as one space); ``…``
  elides: each piece between ``…`` must occur.
- The expected exit status is 0 unless the command ends with the comment ``# exit N``. An HTTP
  example must answer 2xx unless its documented output is the error envelope (``"status":N``
  after ``"ok":false``) or starts with a status line (``HTTP/1.1 N``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

RUNNABLE = ("sh", "sparql")
NO_TEST = re.compile(r"^\s*<!--\s*no-test:\s*(?P<why>.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+)(?P<info>[^`]*)$")
EXIT = re.compile(r"#\s*exit\s+(\d+)\s*$")
ENV = re.compile(r"^[A-Z_][A-Z0-9_]*=")
PROGRAMS = ("ygo-rulings", ".venv/bin/ygo-rulings", "curl")


@dataclass(frozen=True)
class Block:
    """A fenced block: where it opens, its info string, its lines, and the opt-out reason."""

    path: Path
    line: int
    info: str
    lines: tuple[str, ...]
    no_test: str | None
    blank_after: bool  # only blank lines separate it from the next block


@dataclass
class Command:
    """One command of an example, its expected exit status and its documented output."""

    words: list[str]
    line: int
    status: int = 0
    output: list[str] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        return dict(w.split("=", 1) for w in self.words if ENV.match(w))

    @property
    def argv(self) -> list[str]:
        words = list(self.words)
        while words and ENV.match(words[0]):
            words.pop(0)
        return words


@dataclass(frozen=True)
class Example:
    """A runnable block with its commands (a SPARQL block: one command, the query)."""

    block: Block
    commands: tuple[Command, ...]

    @property
    def where(self) -> str:
        return f"{self.block.path}:{self.block.line}"


def read_blocks(path: Path, root: Path) -> list[Block]:
    """Every fenced block of a Markdown file, in order."""
    lines = path.read_text("utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        fence, indent = opened["fence"], len(opened["indent"])
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        marker = NO_TEST.match(before)
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            body.append(lines[j][indent:] if lines[j][:indent].isspace() else lines[j])
            j += 1
        k = j + 1
        while k < len(lines) and not lines[k].strip():
            k += 1
        blank_after = k < len(lines) and bool(FENCE.match(lines[k]))
        blocks.append(
            Block(
                path.relative_to(root),
                i + 1,
                opened["info"].strip(),
                tuple(body),
                marker["why"] if marker else None,
                blank_after,
            )
        )
        i = j + 1
    return blocks


def examples(blocks: list[Block]) -> list[Example]:
    """The runnable, not opted-out blocks as examples, each command with its output."""
    found: list[Example] = []
    for n, block in enumerate(blocks):
        if block.info not in RUNNABLE or block.no_test is not None:
            continue
        after = blocks[n + 1] if block.blank_after and n + 1 < len(blocks) else None
        shown = list(after.lines) if after is not None and after.info not in RUNNABLE else []
        if block.info == "sparql":
            query = Command(["sparql", "\n".join(block.lines)], block.line, output=shown)
            found.append(Example(block, (query,)))
            continue
        commands = shell_commands(block)
        if commands and shown:
            commands[-1].output += shown
        found.append(Example(block, tuple(commands)))
    return found


def shell_commands(block: Block) -> list[Command]:
    """The commands of a ``sh`` block, with the comment lines after each as its output."""
    commands: list[Command] = []
    pending = ""
    start = 0
    for offset, raw in enumerate(block.lines):
        line = raw.rstrip()
        if not pending and line.lstrip().startswith("#"):
            if commands:
                text = line.lstrip()[1:]
                commands[-1].output.append(text[1:] if text.startswith(" ") else text)
            continue
        if not line.strip() and not pending:
            continue
        if not pending:
            start = block.line + 1 + offset
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        text = pending + line
        pending = ""
        exit_ = EXIT.search(text)
        words = shlex.split(text, comments=True)
        commands.append(Command(words, start, int(exit_[1]) if exit_ else 0))
    return commands


def unrunnable(example: Example) -> list[str]:
    """The commands of an example that the runner cannot run (they need a no-test marker)."""
    if example.block.info == "sparql":
        return []
    return [" ".join(c.words) for c in example.commands if not c.argv or c.argv[0] not in PROGRAMS]


def expected_http_status(output: list[str]) -> int | None:
    """The status an HTTP example documents (None: any 2xx)."""
    text = " ".join(output)
    if output and (status := re.match(r"HTTP/1\.1 (\d{3})", output[0].strip())):
        return int(status[1])
    if '"ok":false' in text.replace(" ", "") and (
        status := re.search(r'"status":\s*(\d{3})', text)
    ):
        return int(status[1])
    return None


def squeeze(text: str) -> str:
    return " ".join(text.split())


def missing_output(documented: list[str], real: str) -> list[str]:
    """The pieces of the documented output lines that the real output lacks."""
    flat = squeeze(real)
    lacking: list[str] = []
    for line in documented:
        for piece in line.split("…"):
            piece = squeeze(piece)
            if piece and piece not in flat:
                lacking.append(piece)
    return lacking
