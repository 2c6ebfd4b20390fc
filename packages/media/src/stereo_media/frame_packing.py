"""The frame-packing arrangement SEI: how a 3D TV learns a picture is two views.

H.264 and HEVC both define it (payload type 45): the arrangement (3 side by
side, 4 top-bottom), which frame is the left view, and that it holds until the
next one. Hardware players (3D TVs' USB and DLNA players) switch to 3D on it;
software players read the container's ``st3d`` / ``StereoMode`` instead.

Which pictures carry which form (:class:`PackingSeis`): every keyframe carries
the arrangement with its views' order unspecified (content_interpretation_type
0), and the picture after it the whole message, left view first (1). FFmpeg's
decoders make stereo side data of the second form only, and a decode always
starts on a keyframe: so the picture a decoder starts on carries the
container's stereo signal alone. Where it carried both, the ffmpeg command
line (7.1 to 9.0 at least, the shipped 9.0.2 among them) stops every decode of
the file, a seek's too, with "Task finished with error code: -17 (File
exists)" (its filter graph copies the first picture's side data and refuses
the same kind twice). The engine writes these SEIs itself for every encoder
(``stereo_inference.encode``): x264's own ``frame-packing`` option puts the
whole message on keyframes.
"""

from __future__ import annotations

from stereo_media.sei import sei_nal

FRAME_PACKING_PAYLOAD = 45
ARRANGEMENTS = {"sbs": 3, "tb": 4}  # frame_packing_arrangement_type
LEFT_FIRST = 1  # content_interpretation_type: frame 0 is the left view
UNSPECIFIED_VIEWS = 0  # content_interpretation_type: the views' order is not said


def frame_packing_sei(packing: str, *, hevc: bool = False, left_first: bool = True) -> bytes:
    """One SEI NAL unit (no start code) saying the pictures are ``packing``
    ("sbs" or "tb"), with the left view first (or, ``left_first`` False, the
    views' order unspecified), until the next keyframe says otherwise. Raises
    KeyError for another packing."""
    interpretation = LEFT_FIRST if left_first else UNSPECIFIED_VIEWS
    bits = "".join((
        "1",  # frame_packing_arrangement_id: ue(v) 0
        "0",  # frame_packing_arrangement_cancel_flag
        f"{ARRANGEMENTS[packing]:07b}",
        "0",  # quincunx_sampling_flag
        f"{interpretation:06b}",
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


class PackingSeis:
    """The frame-packing SEI each picture of one stream gets, in decoding order:
    the arrangement on every keyframe, the whole message on the picture after it."""

    def __init__(self, packing: str, *, hevc: bool = False) -> None:
        self._on_keyframe = frame_packing_sei(packing, hevc=hevc, left_first=False)
        self._after_keyframe = frame_packing_sei(packing, hevc=hevc)
        self._keyframe_last = False

    def for_picture(self, keyframe: bool) -> bytes | None:
        """The SEI NAL unit for the next picture (a keyframe or not), or None."""
        after, self._keyframe_last = self._keyframe_last, keyframe
        if keyframe:
            return self._on_keyframe
        return self._after_keyframe if after else None
