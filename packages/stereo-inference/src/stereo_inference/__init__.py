"""The 2D-to-3D engine: depth estimation, view synthesis, packing, encoding;
and its SageMaker-style HTTP server."""

import gc
import os

# One BLAS thread unless the user chose otherwise. The engine's BLAS calls are
# tiny (the parallax fit's 3-column products), and OpenBLAS's thread pool,
# made when numpy loads, spins ~0.1 s of a core after it starts: on a 2-core
# machine, beside the imports and x264 (perf: blas_thread_server and its
# sched_yield, ~2 % of a short CLI conversion's CPU). Read once, at numpy's
# load, so it is set before any engine module imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# No cyclic garbage collection while the engine's modules load. Loading them
# (numpy, PyAV, OpenCV, pydantic's models) creates ~50k objects that live as
# long as the process; every 700 of them the collector walked the young ones,
# every 7,000 the middle generation, and once loaded, its first collections
# walked all of them again: ~0.03 CPU-s of a CLI conversion's start-up, to
# find ~690 unreachable objects. They go straight to the oldest generation
# instead (``freeze`` then ``unfreeze``: no walk), which full collections
# still cover.
_collecting = gc.isenabled()
gc.disable()
try:
    from shared_types.conversion import ConversionResult

    from stereo_inference.convert import convert_file
finally:
    gc.freeze()
    gc.unfreeze()
    if _collecting:
        gc.enable()

__all__ = ["ConversionResult", "convert_file"]
