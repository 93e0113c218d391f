"""Benchmarks (run with `make bench`); results are reported in the README."""
