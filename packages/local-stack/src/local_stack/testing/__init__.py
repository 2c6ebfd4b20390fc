"""Helpers for end-to-end tests and benchmarks of the whole pipeline."""
