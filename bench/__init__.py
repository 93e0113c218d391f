"""Benchmarks (run with `make bench`); results are reported in docs/benchmarks.md."""
