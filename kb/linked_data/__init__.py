"""Linked data: the RDF vocabulary, the RDF export and read-only SPARQL."""
