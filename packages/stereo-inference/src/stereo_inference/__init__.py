"""The 2D-to-3D engine: depth estimation, view synthesis, packing, encoding;
and its SageMaker-style HTTP server."""

import os

# One BLAS thread unless the user chose otherwise. The engine's BLAS calls are
# tiny (the parallax fit's 3-column products), and OpenBLAS's thread pool,
# made when numpy loads, spins ~0.1 s of a core after it starts: on a 2-core
# machine, beside the imports and x264 (perf: blas_thread_server and its
# sched_yield, ~2 % of a short CLI conversion's CPU). Read once, at numpy's
# load, so it is set before any engine module imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from shared_types.conversion import ConversionResult

from stereo_inference.convert import convert_file

__all__ = ["ConversionResult", "convert_file"]
