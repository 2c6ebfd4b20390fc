"""Contracts: Pydantic models, key formats, S3-event parsing, ports, errors."""
