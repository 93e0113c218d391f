"""Turns the corpus files into model objects: loading, segmenting and extracting (pure of text)."""
