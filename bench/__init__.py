"""Benchmarks: `make bench` runs `bench/checkaction.py`, which writes docs/benchmarks.md."""
