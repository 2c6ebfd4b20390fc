"""The 2D-to-3D engine: depth estimation, view synthesis, packing, encoding; SageMaker-style HTTP server."""
