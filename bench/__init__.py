"""Benchmarks, run by hand from the repo root (`python -m bench.<name>`); results go to bench/results/*.json."""
