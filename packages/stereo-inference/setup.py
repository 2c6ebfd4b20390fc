"""The engine's one C extension, ``stereo_inference._planes``: its CPU loops over
image planes (the warp's plan and row resampling, the anaglyph mix), sources in csrc/.

Optional: where it cannot be compiled (no C compiler or Python headers) the
package installs without it, and ``stereo_inference.remap`` and
``stereo_inference.anaglyph`` do the same work with OpenCV, slower. Everything
else is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "stereo_inference._planes",
            ["csrc/planes_module.c", "csrc/warp_plan.c", "csrc/rowwarp.c",
             "csrc/halve.c", "csrc/anaglyph_mix.c"],
            include_dirs=["csrc"],
            depends=["csrc/planes.h"],
            # no contraction beyond the fused multiply-adds the source asks for;
            # Python's own -fwrapv (wrapping signed ints) keeps loops over 2 * i
            # from vectorising: these loops are 1.4-2x faster without it
            extra_compile_args=["-O3", "-ffp-contract=off", "-fno-wrapv"],
            optional=True,
        )
    ]
)
