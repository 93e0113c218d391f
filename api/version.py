"""The version of ygo-rulings, read from the installed package's metadata (pyproject.toml)."""

from __future__ import annotations

from importlib import metadata

DISTRIBUTION = "ygo-rulings"


def package_version() -> str:
    """The installed distribution's version; "unknown" when the code runs uninstalled."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"
