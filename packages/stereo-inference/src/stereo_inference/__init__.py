"""The 2D-to-3D engine: depth estimation, view synthesis, packing, encoding;
and its SageMaker-style HTTP server."""

from stereo_inference.convert import ConversionResult, convert_file

__all__ = ["ConversionResult", "convert_file"]
