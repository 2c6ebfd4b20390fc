"""Spherical Video V2 metadata for VR180: MP4 ``sv3d`` (and ``st3d``), and what
the same says in Matroska.

A VR180 file is equirectangular, covering the front half of the sphere: in
Spherical Video V2 terms a full equirectangular picture with a quarter cropped
off each side, which the ``equi`` box states as projection bounds
(left = right = 0x40000000, a 0.32 fixed-point fraction of the width). The
``sv3d`` box (``svhd`` naming the writer, ``proj`` with ``prhd`` pose and
``equi``) sits beside ``st3d`` in the video sample entry; FFmpeg's MP4
demuxer reads both into stream side data, and its Matroska muxer writes that
side data as ``StereoMode`` 1 and ``Projection`` (type 1, equirectangular,
with the same 20 bytes of bounds as ``ProjectionPrivate``): so an MKV is made
by a stream copy of an MP4 that has them (``stereo_inference.mux``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from stereo_media.stereo_boxes import add_sample_entry_box, add_st3d, sample_entry_box

HALF_SPHERE_BOUNDS = (0, 0, 0x40000000, 0x40000000)  # top, bottom, left, right
WRITER = b"StereoSpot"


def _box(kind: bytes, body: bytes, *, full: bool = True) -> bytes:
    """An MP4 box; ``full`` boxes start with version 0 and flags 0."""
    payload = (b"\0\0\0\0" if full else b"") + body
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def sv3d_box(bounds: tuple[int, int, int, int] = HALF_SPHERE_BOUNDS) -> bytes:
    """An ``sv3d`` box for an equirectangular picture cropped by ``bounds``."""
    svhd = _box(b"svhd", WRITER + b"\0")
    prhd = _box(b"prhd", struct.pack(">iii", 0, 0, 0))  # yaw, pitch, roll
    equi = _box(b"equi", struct.pack(">IIII", *bounds))
    return _box(b"sv3d", svhd + _box(b"proj", prhd + equi, full=False), full=False)


@dataclass(frozen=True)
class Spherical:
    """What an ``sv3d`` box says: its projection and bounds, and who wrote it."""

    projection: str  # "equirectangular" (the only one written here)
    bounds: tuple[int, int, int, int]  # top, bottom, left, right
    writer: str


def read_sv3d(path: Path) -> Spherical | None:
    """The video track's ``sv3d``, or None when it has none (or it is not
    equirectangular). Raises Mp4BoxError for a file it cannot parse."""
    body = sample_entry_box(path, b"sv3d")
    if body is None:
        return None
    svhd_size = struct.unpack(">I", body[:4])[0]
    writer = body[12:svhd_size].rstrip(b"\0").decode("utf-8", "replace")
    at = body.find(b"equi")
    if at < 0:
        return None
    bounds = struct.unpack(">IIII", body[at + 8:at + 24])
    return Spherical("equirectangular", bounds, writer)


def add_vr180_metadata(path: Path) -> None:
    """Mark the MP4 at ``path`` as VR180: ``st3d`` left-right and an ``sv3d``
    for the front half sphere, each added only when missing (atomic rewrites).
    Raises Mp4BoxError."""
    add_st3d(path, "sbs")
    if read_sv3d(path) is None:
        add_sample_entry_box(path, sv3d_box(), "sv3d")
