"""Which comfort controls nagadomi/nunif's iw3 can carry out, and how it is asked.

``--depth iw3`` hands a whole segment to iw3, so a control reaches the output
only if iw3 has an option that does the same thing. Read from iw3's own
argument parser (``iw3/utils.py``, nunif d23721f, April 2026):

- ``synthesised_eye`` -> ``--synthetic-view both|right|left``
- ``auto_convergence`` -> ``--convergence-mode sod_v1`` (its salient-object model)
- ``edge_dilation`` -> ``--edge-dilation N`` (N loops of a 3x3 dilation: radius N;
  always passed, since iw3's own default is 2 1)
- ``depth_curve`` near (d squared) -> ``--mapper pow2``

The rest have no iw3 counterpart and are refused before any work
(``iw3_refusals``), never silently dropped. The comfort report of an iw3
output is measured from its pair instead (``stereo_inference.pair_comfort``).
"""

from __future__ import annotations

from shared_types.models import ConversionParams
from shared_types.stereo_controls import ComfortAction, DepthCurve

# (what iw3 lacks, why), checked in this order
_LACKS = (
    (lambda p: p.foreground_scale != 1.0, "foreground scale",
     "iw3's --foreground-scale is a depth-remapping level (-3..3), not a factor on the "
     "disparity in front of the screen"),
    (lambda p: p.ipd_offset != 0.0, "IPD offset",
     "iw3's --ipd-offset pads each eye's picture (the output grows), it does not shift "
     "the disparity"),
    (lambda p: p.floating_window, "floating window",
     "iw3 has none (its --preserve-screen-border flattens the border instead)"),
    (lambda p: p.depth_curve in (DepthCurve.FAR, DepthCurve.S_CURVE), "depth curve",
     "iw3's mappers have no square-root or S curve (only 'near' maps, to pow2)"),
    (lambda p: p.viewing is not None, "viewing preset",
     "iw3 knows no viewing device: give divergence and convergence instead"),
    (lambda p: p.comfort is ComfortAction.FIX, "--comfort fix",
     "iw3 cannot clamp shots into a comfort zone"),
)


def iw3_refusals(params: ConversionParams) -> list[str]:
    """One human-readable line per control in ``params`` that iw3 cannot carry out."""
    return [f"{name} is not available with the iw3 depth ({why})"
            for asks, name, why in _LACKS if asks(params)]


def iw3_control_args(params: ConversionParams) -> list[str]:
    """iw3's options for the comfort controls it has (``iw3_refusals`` first)."""
    args = ["--synthetic-view", params.synthesised_eye.value,
            "--edge-dilation", str(params.edge_dilation)]
    if params.auto_convergence:
        args += ["--convergence-mode", "sod_v1"]
    if params.depth_curve is DepthCurve.NEAR:
        args += ["--mapper", "pow2"]
    return args
