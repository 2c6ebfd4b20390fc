"""MP4 ``st3d`` box (Spherical Video V2): tells VR players a file is 3D.

ffmpeg's MP4 muxer writes ``st3d`` only from stereo side data on the stream,
which a stream copy of an H.264 with a frame-packing SEI does not carry. So it
is added here, after the mux: the video track's sample entry (``avc1``,
``hvc1``...) gets an ``st3d`` child, every enclosing box grows by its size,
and when ``moov`` precedes ``mdat`` (``+faststart``) every chunk offset
(``stco``/``co64``) moves by the same amount. Pure Python on the box tree
(``stereo_media.mp4_boxes``).
"""

from __future__ import annotations

import os
import shutil
import struct
from pathlib import Path

from stereo_media.mp4_boxes import (
    CONTAINER_BOXES,
    Mp4BoxError,
    boxes,
    descend,
    handler_type,
    read_moov,
    sample_entries,
)

ST3D_MODES = {"tb": 1, "sbs": 2}  # 0 would be monoscopic
_VISUAL_SAMPLE_ENTRY_HEADER = 78  # bytes after the box header, before child boxes


def _video_entry(moov: bytes) -> tuple[list[int], int, int]:
    """(starts of the boxes enclosing the video sample entry, entry start, entry end)."""
    for kind, start, body, end in boxes(moov, 0, len(moov)):
        if kind != b"moov":
            continue
        for tkind, tstart, tbody, tend in boxes(moov, body, end):
            if tkind != b"trak" or handler_type(moov, tbody, tend) != b"vide":
                continue
            chain = [start, tstart]
            entries = sample_entries(moov, tbody, tend)
            if entries and descend(moov, tbody, tend, [b"mdia", b"minf", b"stbl", b"stsd"],
                                   chain) is not None:
                return chain, *entries[0]
    raise Mp4BoxError("no video track with a sample entry")


def read_st3d(path: Path) -> int | None:
    """The ``st3d`` stereo mode of the video track (1 top-bottom, 2 left-right),
    or None when there is none. Raises Mp4BoxError for a file it cannot parse."""
    found = sample_entry_box(path, b"st3d")
    return found[4] if found is not None else None


def sample_entry_box(path: Path, kind: bytes) -> bytes | None:
    """The body of the video sample entry's child box ``kind``, or None.
    Raises Mp4BoxError for a file it cannot parse."""
    moov = read_moov(Path(path))[0]
    _, estart, eend = _video_entry(moov)
    for found, _, body, end in boxes(moov, estart + 8 + _VISUAL_SAMPLE_ENTRY_HEADER, eend):
        if found == kind:
            return moov[body:end]
    return None


def add_st3d(path: Path, packing: str) -> None:
    """Give the video track of the MP4 at ``path`` an ``st3d`` box for ``packing``
    ("sbs" or "tb"), rewriting the file atomically. A file that already has one
    is left as it is. Raises Mp4BoxError (not an MP4) or KeyError (packing)."""
    path = Path(path)
    mode = ST3D_MODES[packing]
    if read_st3d(path) is not None:
        return
    add_sample_entry_box(path, struct.pack(">I4sIB", 13, b"st3d", 0, mode), "st3d")


def add_sample_entry_box(path: Path, box: bytes, name: str) -> None:
    """Append ``box`` (whole, with its header) to the children of the video
    track's sample entry of the MP4 at ``path``, rewriting the file atomically
    (through a hidden temp file named after ``name``). Raises Mp4BoxError."""
    path = Path(path)
    moov, offset, size, before_mdat = read_moov(path)
    chain, estart, eend = _video_entry(moov)
    data = bytearray(moov[:eend] + box + moov[eend:])
    for start in [*chain, estart]:
        _grow(data, start, len(box))
    if before_mdat:
        _shift_chunk_offsets(data, len(box))
    tmp = path.with_name(f".{path.name}.{name}")
    with path.open("rb") as src, tmp.open("wb") as dst:
        dst.write(src.read(offset))
        dst.write(data)
        src.seek(offset + size)
        shutil.copyfileobj(src, dst, 1 << 20)
        dst.flush()
        os.fsync(dst.fileno())
    os.replace(tmp, path)


def _grow(data: bytearray, start: int, by: int) -> None:
    size = struct.unpack(">I", data[start:start + 4])[0]
    if size == 1:
        large = struct.unpack(">Q", data[start + 8:start + 16])[0]
        data[start + 8:start + 16] = struct.pack(">Q", large + by)
    else:
        data[start:start + 4] = struct.pack(">I", size + by)


def _shift_chunk_offsets(data: bytearray, by: int) -> None:
    def walk(body, end):
        for kind, _, cbody, cend in boxes(bytes(data), body, end):
            if kind in CONTAINER_BOXES:
                walk(cbody, cend)
            elif kind in (b"stco", b"co64"):
                wide = kind == b"co64"
                count = struct.unpack(">I", data[cbody + 4:cbody + 8])[0]
                fmt, width = (">Q", 8) if wide else (">I", 4)
                for i in range(count):
                    at = cbody + 8 + i * width
                    value = struct.unpack(fmt, data[at:at + width])[0] + by
                    if not wide and value >= 1 << 32:
                        raise Mp4BoxError("chunk offset overflows stco")
                    data[at:at + width] = struct.pack(fmt, value)
    walk(0, len(data))
