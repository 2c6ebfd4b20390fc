"""Chunking and reassembly with ffmpeg."""
