"""Closed captions inside an H.264 picture: ATSC A/53 caption data in SEI.

US broadcasts, their recordings and many camcorders and disc rips carry
CEA-608/708 captions in the video stream itself: each picture's SEI (H.264's or HEVC's
``user_data_registered_itu_t_t35``, provider ATSC, ``GA94``) holds a few
``cc_data`` triplets. A decoder hands them on as the frame's ``A53_CC`` side
data; an encoder given new pixels has none, so a conversion would lose them.
:func:`caption_sei` builds that SEI again for an encoded picture, and
:func:`with_caption_sei` puts it in front of the picture's Annex B NAL units
(what x264, x265 and NVENC give back), so the converted video carries the same
captions at the same pictures and every player and tool that reads them from
the source reads them from the 3D file.
"""

from __future__ import annotations

import re

SEI_NAL = b"\x06"  # H.264 nal_unit_type 6 (SEI), nal_ref_idc 0
HEVC_SEI_NAL = b"\x4e\x01"  # HEVC nal_unit_type 39 (prefix SEI), layer 0, temporal id 1
T35_PAYLOAD = 4  # user_data_registered_itu_t_t35
# country United States, provider ATSC, user identifier "GA94", user data type cc_data
ATSC_CC_HEADER = b"\xb5\x00\x31GA94\x03"
MAX_TRIPLETS = 31  # cc_count is 5 bits
START_CODE = b"\x00\x00\x00\x01"
_START = re.compile(b"\x00?\x00\x00\x01")


def caption_sei(cc_data: bytes, *, hevc: bool = False) -> bytes:
    """One SEI NAL unit (its header first, no start code) of H.264, or of HEVC
    when ``hevc``, carrying ``cc_data`` (whole 3-byte triplets, as a decoder's
    ``A53_CC`` side data holds them; at most :data:`MAX_TRIPLETS`, the rest dropped)."""
    count = min(len(cc_data) // 3, MAX_TRIPLETS)
    payload = (ATSC_CC_HEADER + bytes([0x40 | count, 0xFF]) + cc_data[: count * 3]
               + b"\xff")  # process_cc_data_flag, em_data, triplets, marker_bits
    size = len(payload)
    message = bytes([T35_PAYLOAD]) + b"\xff" * (size // 255) + bytes([size % 255]) + payload
    header = HEVC_SEI_NAL if hevc else SEI_NAL
    return header + _escaped(message + b"\x80")  # rbsp_trailing_bits


def with_caption_sei(annexb: bytes, cc_data: bytes | None, *, hevc: bool = False) -> bytes:
    """The encoded picture ``annexb`` (Annex B) with ``cc_data``'s SEI just
    before its first slice, after any delimiter, parameter sets and other SEI
    the encoder put first; unchanged when there is no caption data."""
    if not cc_data or len(cc_data) < 3:
        return annexb
    at = _first_slice(annexb, hevc)
    return annexb[:at] + START_CODE + caption_sei(cc_data, hevc=hevc) + annexb[at:]


def _first_slice(annexb: bytes, hevc: bool) -> int:
    """Offset of the start code (3 or 4 bytes) of ``annexb``'s first slice NAL
    unit (H.264 types 1-5, HEVC types 0-31); the end when it has none."""
    for match in _START.finditer(annexb):
        if match.end() >= len(annexb):
            break
        header = annexb[match.end()]
        kind = (header >> 1) & 0x3F if hevc else header & 0x1F
        if (kind < 32) if hevc else (1 <= kind <= 5):
            return match.start()
    return len(annexb)


def _escaped(rbsp: bytes) -> bytes:
    """``rbsp`` with H.264's emulation prevention: 0x03 after two zero bytes
    that a byte of 0 to 3 would follow (so no start code appears inside)."""
    out = bytearray()
    zeros = 0
    for byte in rbsp:
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)
