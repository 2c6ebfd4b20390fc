"""Output layouts: frame geometry and side-by-side / top-bottom packing.

(Anaglyphs are mixed in ``stereo_inference.anaglyph``; cross-eyed and VR180
frames are made from rendered SBS ones in ``stereo_inference.layouts``, RGBD
in ``stereo_inference.rgbd``.)
"""

from __future__ import annotations

import math

import numpy as np
from shared_types.models import OutputMode

from stereo_inference.errors import InvalidRequestError
from stereo_inference.layouts import vr180_side

# rendered as two eyes side by side (VR180 is projected from that afterwards)
SIDE_BY_SIDE = (OutputMode.SBS, OutputMode.HALF_SBS, OutputMode.VR180, OutputMode.RGBD,
                OutputMode.HALF_RGBD)
RGBD_MODES = (OutputMode.RGBD, OutputMode.HALF_RGBD)


def parse_mode(mode: OutputMode | str) -> OutputMode:
    """The OutputMode named ``mode``. Raises InvalidRequestError for an unknown one."""
    try:
        return OutputMode(mode)
    except ValueError as exc:
        names = ", ".join(m.value for m in OutputMode)
        raise InvalidRequestError(f"unknown output mode {mode!r}; choose one of {names}") from exc


def _even(v: float) -> int:
    """``v`` rounded up to an even size (4:2:0 chroma needs even planes)."""
    return max(2, math.ceil(v / 2) * 2)


def decoded_size(width: int, height: int) -> tuple[int, int]:
    """(width, height) a ``width`` x ``height`` source's frames are decoded at: its
    own size, an odd side rounded up to even (a 4:4:4 or VP9 source may be
    853x479; 4:2:0 planes of an odd size cannot be read or written)."""
    return _even(width), _even(height)


def eye_size(mode: OutputMode, width: int, height: int) -> tuple[int, int]:
    """(width, height) one eye is rendered at for a source of ``width`` x ``height``
    (even, so each eye's chroma planes are whole; see ``output_size``)."""
    if mode in (OutputMode.HALF_SBS, OutputMode.HALF_RGBD):
        return _even(width / 2), _even(height)
    if mode is OutputMode.HALF_TB:
        return _even(width), _even(height / 2)
    return _even(width), _even(height)


def packed_size(mode: OutputMode, width: int, height: int) -> tuple[int, int]:
    """(width, height) of two rendered eyes packed side by side or top-bottom."""
    ew, eh = eye_size(mode, width, height)
    if mode in SIDE_BY_SIDE:
        return 2 * ew, eh
    if mode in (OutputMode.TB, OutputMode.HALF_TB):
        return ew, 2 * eh
    return ew, eh


def output_size(mode: OutputMode, width: int, height: int) -> tuple[int, int]:
    """(width, height) of the output frame: exactly the source's for half layouts
    and anaglyph, doubled along the packing axis for full layouts. Only an odd
    source side is rounded up to even (4:2:0). When a half layout's eye is odd
    (854-wide half-SBS: 427), the packed eyes (856) are scaled to this size."""
    w, h = _even(width), _even(height)
    if mode is OutputMode.VR180:  # one square half sphere per eye (``layouts``)
        side = vr180_side(w)
        return 2 * side, side
    if mode in (OutputMode.SBS, OutputMode.RGBD):
        return 2 * w, h
    if mode is OutputMode.TB:
        return w, 2 * h
    return w, h


def pack(mode: OutputMode, left, right):
    """Put two eye images (tensors or arrays, ..., H, W) next to (SBS) or above (TB)
    each other. Raises ValueError for anaglyph, which is not a packed layout."""
    if mode in SIDE_BY_SIDE:
        axis = -1
    elif mode in (OutputMode.TB, OutputMode.HALF_TB):
        axis = -2
    else:
        raise ValueError(f"{mode} is not a packed stereo layout")
    if isinstance(left, np.ndarray):
        return np.concatenate([left, right], axis=axis)
    import torch

    return torch.cat([left, right], dim=axis)
