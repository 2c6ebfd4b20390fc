"""Closed captions inside an H.264 picture: ATSC A/53 caption data in SEI.

US broadcasts, their recordings and many camcorders and disc rips carry
CEA-608/708 captions in the video stream itself: each picture's SEI (H.264's or HEVC's
``user_data_registered_itu_t_t35``, provider ATSC, ``GA94``) holds a few
``cc_data`` triplets. A decoder hands them on as the frame's ``A53_CC`` side
data; an encoder given new pixels has none, so a conversion would lose them.
:func:`caption_sei` builds that SEI again for an encoded picture, and
:func:`with_caption_sei` puts it in front of the picture's first slice
(``stereo_media.sei``), so the converted video carries the same
captions at the same pictures and every player and tool that reads them from
the source reads them from the 3D file.
"""

from __future__ import annotations

from stereo_media.sei import sei_nal, with_sei

T35_PAYLOAD = 4  # user_data_registered_itu_t_t35
# country United States, provider ATSC, user identifier "GA94", user data type cc_data
ATSC_CC_HEADER = b"\xb5\x00\x31GA94\x03"
MAX_TRIPLETS = 31  # cc_count is 5 bits


def caption_sei(cc_data: bytes, *, hevc: bool = False) -> bytes:
    """One SEI NAL unit (its header first, no start code) of H.264, or of HEVC
    when ``hevc``, carrying ``cc_data`` (whole 3-byte triplets, as a decoder's
    ``A53_CC`` side data holds them; at most :data:`MAX_TRIPLETS`, the rest dropped)."""
    count = min(len(cc_data) // 3, MAX_TRIPLETS)
    payload = (ATSC_CC_HEADER + bytes([0x40 | count, 0xFF]) + cc_data[: count * 3]
               + b"\xff")  # process_cc_data_flag, em_data, triplets, marker_bits
    return sei_nal(T35_PAYLOAD, payload, hevc=hevc)


def with_caption_sei(annexb: bytes, cc_data: bytes | None, *, hevc: bool = False) -> bytes:
    """The encoded picture ``annexb`` (Annex B) with ``cc_data``'s SEI just
    before its first slice, after any delimiter, parameter sets and other SEI
    the encoder put first; unchanged when there is no caption data."""
    if not cc_data or len(cc_data) < 3:
        return annexb
    return with_sei(annexb, caption_sei(cc_data, hevc=hevc), hevc=hevc)
