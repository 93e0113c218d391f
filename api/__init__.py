"""The front doors: the HTTP API (FastAPI) and the command line (Typer), thin over kb.service."""
