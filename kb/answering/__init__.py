"""Answering: reading a question once, scope checks, and assembling the answer from reasoners and retrieval."""
