"""Depth models: the catalogue, install and download."""
