"""SEI messages put into an encoded H.264 or HEVC picture.

An encoder given new pixels writes only the SEI it knows of; what the source
carried (closed captions: ``stereo_media.a53``) or what the encoder cannot write
(the frame-packing SEI in the forms ``stereo_media.frame_packing`` gives) is
built here as one SEI NAL unit and put in front of the picture's first slice,
after any delimiter, parameter sets and other SEI the encoder put first. Annex B
byte streams, as x264, x265 and NVENC give them back.
"""

from __future__ import annotations

import re

SEI_NAL = b"\x06"  # H.264 nal_unit_type 6 (SEI), nal_ref_idc 0
HEVC_SEI_NAL = b"\x4e\x01"  # HEVC nal_unit_type 39 (prefix SEI), layer 0, temporal id 1
START_CODE = b"\x00\x00\x00\x01"
_START = re.compile(b"\x00?\x00\x00\x01")


def sei_nal(payload_type: int, payload: bytes, *, hevc: bool = False) -> bytes:
    """One SEI NAL unit (its header first, no start code) of H.264, or of HEVC
    when ``hevc``, holding one message of ``payload_type`` (``payload``: whole
    bytes, its bits already byte aligned)."""
    size = len(payload)
    message = (bytes([payload_type]) + b"\xff" * (size // 255) + bytes([size % 255])
               + payload)
    header = HEVC_SEI_NAL if hevc else SEI_NAL
    return header + _escaped(message + b"\x80")  # rbsp_trailing_bits


def with_sei(annexb: bytes, nal: bytes, *, hevc: bool = False) -> bytes:
    """The encoded picture ``annexb`` (Annex B) with the SEI NAL unit ``nal``
    just before its first slice."""
    at = _first_slice(annexb, hevc)
    return annexb[:at] + START_CODE + nal + annexb[at:]


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
    """``rbsp`` with emulation prevention: 0x03 after two zero bytes that a
    byte of 0 to 3 would follow (so no start code appears inside)."""
    out = bytearray()
    zeros = 0
    for byte in rbsp:
        if zeros >= 2 and byte <= 3:
            out.append(3)
            zeros = 0
        out.append(byte)
        zeros = zeros + 1 if byte == 0 else 0
    return bytes(out)
