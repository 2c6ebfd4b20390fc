"""The engine's C extension (``_planes``, sources in csrc/), or None where it was not built.

``setup.py`` compiles it at install when a C compiler is there; without one
the package installs all the same, and the modules that use it do the same
work without it (``remap`` and ``anaglyph`` with OpenCV, ``warp`` with
numpy). They read ``native.planes`` at each call, so a test can take it away.
"""

from __future__ import annotations

from types import ModuleType

planes: ModuleType | None
try:
    import stereo_inference._planes as planes
except ImportError:  # no C compiler at install: OpenCV does the work, slower
    planes = None


def backend() -> str:
    """What does the CPU plane loops here: ``c-avx512``, ``c-avx2``, ``c-scalar``
    or ``opencv``."""
    return f"c-{planes.simd()}" if planes is not None else "opencv"
