"""Test helpers other packages reuse: a moto_server process and fake credentials."""
