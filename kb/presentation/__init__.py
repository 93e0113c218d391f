"""Presentation: wiki pages (page model, renderers, markup writers) and the judge-training quiz."""
