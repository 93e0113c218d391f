"""Retrieval: lexical (BM25), dense (embeddings) and graph rankings fused by RRF."""
