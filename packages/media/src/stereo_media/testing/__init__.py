"""Test support for media: real small clips, pictures and stream facts made with ffmpeg and PyAV."""
