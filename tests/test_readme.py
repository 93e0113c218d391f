"""The README and docs/ stay true: everything the product has is documented, and links resolve.

- every command and option of the CLI (from the Typer app) has its section in docs/cli.md;
- every setting (from `Settings`) has its row, with its variable, default and help, in
  docs/settings.md;
- every route of the app (from FastAPI) has a heading in docs/api.md, except the two file mounts
  that `INTERNAL` names;
- the README is short and starts with the two quick-start commands, every relative link of the
  README and docs/ resolves (anchors too), and every `no-test` marker of an example says why.

The examples themselves are run by tests/test_doc_examples.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from doc_examples import NO_TEST, RUNNABLE, read_blocks  # type: ignore[import-not-found]
from fastapi.routing import APIRoute
from starlette.routing import Mount, Route
from tests_support import REPO  # type: ignore[import-not-found]
from typer.main import get_command

from api.app import create_app
from api.cli import app as cli_app
from kb.config import settings_table
from kb.service import RulingsService

DOCS = REPO / "docs"
README = (REPO / "README.md").read_text("utf-8")
MARKDOWN = [REPO / "README.md", REPO / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))]
# Pages other branches are writing; the README links to them already.
PENDING_PAGES: set[str] = set()
# Mounts that only serve the files the HTML pages load (their paths are the pages' business).
INTERNAL = {"/static": "the web page's assets", "/docs/assets": "Swagger UI's assets"}
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def headings(path: Path) -> list[tuple[int, str, int]]:
    """(level, text, line index) of every Markdown heading outside code blocks."""
    found: list[tuple[int, str, int]] = []
    fenced = False
    for i, line in enumerate(path.read_text("utf-8").splitlines()):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"^(#{1,6}) (.*)$", line)):
            found.append((len(m[1]), m[2].strip(), i))
    return found


def code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def sections(path: Path) -> dict[str, str]:
    """Each code span of a heading -> the text under that heading, up to the next heading at the
    same or a higher level."""
    lines = path.read_text("utf-8").splitlines()
    marks = headings(path)
    out: dict[str, str] = {}
    for n, (level, text, start) in enumerate(marks):
        end = next((i for lv, _, i in marks[n + 1 :] if lv <= level), len(lines))
        for span in code_spans(text):
            out[span] = "\n".join(lines[start + 1 : end])
    return out


# --- the CLI ---------------------------------------------------------------------------------


def cli_commands() -> Iterator[tuple[str, Any]]:
    """("ygo-rulings cards search", click command) for the app and every command in it."""

    def walk(command: Any, prefix: str) -> Iterator[tuple[str, Any]]:
        yield prefix, command
        subcommands = getattr(command, "commands", None)
        if isinstance(subcommands, dict):
            for name, sub in subcommands.items():
                yield from walk(sub, f"{prefix} {name}")

    yield from walk(get_command(cli_app), "ygo-rulings")


def test_every_command_and_option_is_in_docs_cli() -> None:
    documented = sections(DOCS / "cli.md")
    undocumented: list[str] = []
    for name, command in cli_commands():
        if isinstance(getattr(command, "commands", None), dict) and name != "ygo-rulings":
            continue  # a group: its commands are documented one by one
        if name not in documented:
            undocumented.append(f"the command `{name}` (a heading: ### `{name}`)")
            continue
        for param in command.params:
            for opt in param.opts:
                named = re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", documented[name])
                if opt.startswith("--") and opt != "--help" and not named:
                    undocumented.append(f"the option {opt} of `{name}`")
    assert not undocumented, "undocumented in docs/cli.md:\n- " + "\n- ".join(undocumented)


def test_docs_cli_names_no_command_the_cli_lacks() -> None:
    names = {name for name, _ in cli_commands()}
    documented = {s for s in sections(DOCS / "cli.md") if s.startswith("ygo-rulings")}
    assert documented <= names, f"docs/cli.md documents missing commands: {documented - names}"


# --- the settings ----------------------------------------------------------------------------


def test_every_setting_is_in_docs_settings() -> None:
    page = (DOCS / "settings.md").read_text("utf-8")
    rows = [f"| `{env}` | `{default}` | {help_} |" for env, default, help_ in settings_table()]
    missing = [row for row in rows if row not in page]
    assert not missing, (
        "docs/settings.md lacks these rows of its table (or has an older default or help): "
        "put each exactly as below\n" + "\n".join(missing)
    )
    known = {env for env, _, _ in settings_table()}
    listed = set(re.findall(r"^\| `(YGO_[A-Z_]+)` \|", page, re.M))
    assert listed <= known, f"docs/settings.md lists settings that do not exist: {listed - known}"


# --- the routes ------------------------------------------------------------------------------


def app_routes(app: Any) -> set[str]:
    """ "METHOD /path" for every route, a mount as "/path" (HEAD left out: every GET has it)."""
    found: set[str] = set()
    for route in app.routes:
        if isinstance(route, Mount):
            if route.path not in INTERNAL:
                found.add(route.path)
        elif isinstance(route, APIRoute | Route):
            path = re.sub(r"\{(\w+)(:\w+)?\}", r"{\1}", route.path)
            found |= {f"{m} {path}" for m in route.methods or () if m in METHODS}
    return found


def documented_routes() -> set[str]:
    spans = [s for _, text, _ in headings(DOCS / "api.md") for s in code_spans(text)]
    return {s for s in spans if s.split(" ")[0] in METHODS or s.startswith("/")}


def test_every_route_is_in_docs_api(hash_service: RulingsService) -> None:
    served = app_routes(create_app(hash_service))
    documented = documented_routes()
    missing = sorted(served - documented)
    assert not missing, (
        "routes without a heading in docs/api.md (add ### `METHOD /path`, or ### `/path` for a "
        "mount): " + ", ".join(missing)
    )
    stale = sorted(documented - served)
    assert not stale, f"docs/api.md documents routes the app does not serve: {', '.join(stale)}"


# --- the README and the links ----------------------------------------------------------------


def test_readme_is_short_and_starts_with_the_quick_start() -> None:
    assert len(README.splitlines()) <= 300
    blocks = read_blocks(REPO / "README.md", REPO)
    first = next(b for b in blocks if b.info == "sh")
    commands = [line.split("#")[0].strip() for line in first.lines]
    assert commands == ["make run", "make test"]
    makefile = (REPO / "Makefile").read_text("utf-8")
    assert re.search(r"^run:", makefile, re.M) and re.search(r"^test:", makefile, re.M)


def test_readme_links_every_reference_page() -> None:
    pages = {f"docs/{p.name}" for p in DOCS.glob("*.md")} | PENDING_PAGES
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", README))
    assert pages <= linked, f"README.md does not link: {sorted(pages - linked)}"


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


@pytest.mark.parametrize("page", MARKDOWN, ids=[str(p.relative_to(REPO)) for p in MARKDOWN])
def test_relative_links_resolve(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text("utf-8"), flags=re.S)
    broken: list[str] = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # an absolute URL
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        relative = file.relative_to(REPO) if file.is_relative_to(REPO) else file
        if not file.exists():
            if str(relative) not in PENDING_PAGES:
                broken.append(target)
            continue
        if (
            anchor
            and file.suffix == ".md"
            and anchor not in {slug(h) for _, h, _ in headings(file)}
        ):
            broken.append(target)
    assert not broken, f"{page.relative_to(REPO)}: links that do not resolve: {broken}"


def test_every_no_test_marker_says_why_and_marks_a_runnable_block() -> None:
    for page in [REPO / "README.md", *sorted(DOCS.glob("*.md"))]:
        lines = page.read_text("utf-8").splitlines()
        marked = [i for i, line in enumerate(lines) if NO_TEST.match(line)]
        blocks = {b.line - 1: b for b in read_blocks(page, REPO)}
        for i in marked:
            assert NO_TEST.match(lines[i])["why"], f"{page.name}:{i + 1}: say why"  # type: ignore[index]
            following = next(j for j in range(i + 1, len(lines)) if lines[j].strip())
            assert following in blocks and blocks[following].info in RUNNABLE, (
                f"{page.name}:{i + 1}: a no-test marker must stand right before a sh or sparql block"
            )


# --- the example convention (tests/doc_examples.py) ------------------------------------------

SAMPLE = """
<!-- no-test: starts a server -->
```sh
ygo-rulings serve
```

```sh
YGO_MAX_K=5 ygo-rulings search corrente \\
     --k 6   # exit 2
# Error: k: must be …, got 6
curl -s http://127.0.0.1:8000/health
```

```json
{"ok":true,
```

```sparql
SELECT * WHERE { ?s ?p ?o } LIMIT 1
```

```yaml
id: not-run
```
"""


def test_the_example_convention(tmp_path: Path) -> None:
    from doc_examples import examples, expected_http_status, missing_output

    page = tmp_path / "page.md"
    page.write_text(SAMPLE, "utf-8")
    found = examples(read_blocks(page, tmp_path))
    assert [e.block.info for e in found] == ["sh", "sparql"]  # the marked block is left out
    search, health = found[0].commands
    assert search.argv == ["ygo-rulings", "search", "corrente", "--k", "6"]
    assert search.env == {"YGO_MAX_K": "5"} and search.status == 2 and search.line == 8
    assert search.output == ["Error: k: must be …, got 6"]
    assert health.output == ['{"ok":true,']  # the block right after the last command
    assert found[1].commands[0].words[1] == "SELECT * WHERE { ?s ?p ?o } LIMIT 1"
    assert missing_output(search.output, "Error: k:  must be between 1 and 5, got 6") == []
    assert missing_output(search.output, "Error: k: must be at most 5") == [", got 6"]
    assert expected_http_status(['{"ok":false,"error":"…","status":422}']) == 422
    assert expected_http_status(["HTTP/1.1 304 Not Modified"]) == 304
    assert expected_http_status(['{"ok":true,']) is None
