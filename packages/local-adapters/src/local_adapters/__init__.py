"""Ports on SQLite + the filesystem: the embedded default backend."""
