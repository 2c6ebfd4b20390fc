"""Test support for models: a local stand-in for the Hugging Face hub."""
