"""requirements.lock covers every pin of pyproject.toml (dependencies and the dev extra), each
package with its hashes: `make install` installs from it with --require-hashes."""

from __future__ import annotations

import re
import tomllib

from tests_support import REPO  # type: ignore[import-not-found]

PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)")


def _name(raw: str) -> str:
    return re.sub(r"[-_.]+", "-", raw).lower()


def _lock() -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) for every requirement of the lock."""
    found: dict[str, tuple[str, int]] = {}
    current: str | None = None
    for line in (REPO / "requirements.lock").read_text("utf-8").splitlines():
        if m := PIN.match(line):
            current = _name(m.group(1))
            found[current] = (m.group(2), 0)
        elif current and line.strip().startswith("--hash=sha256:"):
            version, hashes = found[current]
            found[current] = (version, hashes + 1)
        elif not line.startswith(" "):
            current = None
    return found


def test_every_pin_of_pyproject_is_locked_at_its_version_with_hashes() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    pins = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    lock = _lock()
    assert len(lock) > len(pins)  # dependencies of the pins are locked too
    for pin in pins:
        m = PIN.match(pin)
        assert m, f"pyproject.toml pins {pin!r} inexactly"
        name, version = _name(m.group(1)), m.group(2)
        assert name in lock, f"{name} is not in requirements.lock: run `make lock`"
        locked = lock[name][0].split("+")[0]  # torch's local label (+cpu) names the build
        assert locked == version, f"{name}: pyproject {version}, lock {locked}: run `make lock`"
    unhashed = sorted(n for n, (_, hashes) in lock.items() if hashes == 0)
    assert unhashed == []
