"""The 2D-to-3D engine: depth estimation, view synthesis, packing, encoding;
and its SageMaker-style HTTP server."""

from shared_types.conversion import ConversionResult

from stereo_inference.convert import convert_file

__all__ = ["ConversionResult", "convert_file"]
