"""The frame-packing arrangement SEI: how a 3D TV learns a picture is two views.

H.264 and HEVC both define it (payload type 45): the arrangement (3 side by
side, 4 top-bottom), frame 0 as the left view, and that it holds until the
next one. x264 writes it when asked (``frame-packing``); x265 and NVENC cannot,
so the engine's 10-bit HEVC and NVENC outputs get :func:`frame_packing_sei`
on every keyframe instead (``stereo_inference.encode``). FFmpeg's decoders read
it back as the picture's stereo 3D side data.
"""

from __future__ import annotations

from shared_types.sei import sei_nal

FRAME_PACKING_PAYLOAD = 45
ARRANGEMENTS = {"sbs": 3, "tb": 4}  # frame_packing_arrangement_type
LEFT_FIRST = 1  # content_interpretation_type: frame 0 is the left view


def frame_packing_sei(packing: str, *, hevc: bool = False) -> bytes:
    """One SEI NAL unit (no start code) saying the pictures are ``packing``
    ("sbs" or "tb") with the left view first, until the next keyframe says
    otherwise. Raises KeyError for another packing."""
    bits = "".join((
        "1",  # frame_packing_arrangement_id: ue(v) 0
        "0",  # frame_packing_arrangement_cancel_flag
        f"{ARRANGEMENTS[packing]:07b}",
        "0",  # quincunx_sampling_flag
        f"{LEFT_FIRST:06b}",
        "000000",  # spatial flipping, frame 0 flipped, field views, current frame
        # is frame 0, frame 0 and frame 1 self contained
        "0" * 16,  # the two frames' grid positions
        "0" * 8,  # frame_packing_arrangement_reserved_byte
        # HEVC: persistence flag, upsampled aspect ratio flag; H.264: repetition
        # period ue(v) 1 (until the next sequence), extension flag
        "10" if hevc else "0100",
    ))
    if len(bits) % 8:  # payload alignment: a one, then zeros
        bits += "1" + "0" * (7 - len(bits) % 8)
    return sei_nal(FRAME_PACKING_PAYLOAD, int(bits, 2).to_bytes(len(bits) // 8, "big"),
                   hevc=hevc)
