"""Test support shared by every package: in-memory fakes and port contract suites."""
