"""The repository's boundary checks: import-linter's layer contracts and mypy."""
