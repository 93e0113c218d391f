"""ygo-rulings core: the rule graph, its indexes and the query service (pure, no I/O in logic)."""

__version__ = "0.1.0"
