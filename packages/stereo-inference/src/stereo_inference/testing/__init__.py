"""Helpers for the engine's tests (importable by a spawned child, unlike a test module)."""
