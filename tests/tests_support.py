"""Constants shared by test modules (importable because pytest puts tests/ on sys.path)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
