"""Benchmarks (run one with ``python -m bench.evaluators``)."""
