"""Routes: web (see the module owner's docstring once implemented)."""

from __future__ import annotations

from fastapi import FastAPI

from kb.service import RulingsService


def register(app: FastAPI, service: RulingsService) -> None:
    """Add this group's routes to the app."""
    del app, service
