"""MP4 ``st3d`` box (Spherical Video V2): tells VR players a file is 3D.

ffmpeg's MP4 muxer writes ``st3d`` only from stereo side data on the stream,
which a stream copy of an H.264 with a frame-packing SEI does not carry. So it
is added here, after the mux: the video track's sample entry (``avc1``,
``hvc1``...) gets an ``st3d`` child, every enclosing box grows by its size,
and when ``moov`` precedes ``mdat`` (``+faststart``) every chunk offset
(``stco``/``co64``) moves by the same amount. Pure Python on the box tree.
"""

from __future__ import annotations

import os
import shutil
import struct
from pathlib import Path

ST3D_MODES = {"tb": 1, "sbs": 2}  # 0 would be monoscopic
_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl"}
_VISUAL_SAMPLE_ENTRY_HEADER = 78  # bytes after the box header, before child boxes


class Mp4BoxError(ValueError):
    """The file is not an MP4 this module can rewrite."""


def _boxes(data: bytes, start: int, end: int):
    """(type, box start, payload start, box end) of each box in data[start:end]."""
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[pos + 8:pos + 16])[0], 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            raise Mp4BoxError(f"box {kind!r} at {pos} overruns its parent")
        yield kind, pos, pos + header, pos + size
        pos += size


def _top_level(path: Path) -> list[tuple[bytes, int, int]]:
    """(type, offset, size) of the file's top-level boxes, reading headers only."""
    out, total = [], path.stat().st_size
    with path.open("rb") as fh:
        pos = 0
        while pos + 8 <= total:
            fh.seek(pos)
            size, kind = struct.unpack(">I4s", fh.read(8))
            if size == 1:
                size = struct.unpack(">Q", fh.read(8))[0]
            elif size == 0:
                size = total - pos
            if size < 8:
                raise Mp4BoxError(f"bad top-level box {kind!r} at {pos}")
            out.append((kind, pos, size))
            pos += size
    return out


def _video_entry(moov: bytes) -> tuple[list[int], int, int]:
    """(starts of the boxes enclosing the video sample entry, entry start, entry end)."""
    for kind, start, body, end in _boxes(moov, 0, len(moov)):
        if kind != b"moov":
            continue
        for tkind, tstart, tbody, tend in _boxes(moov, body, end):
            if tkind != b"trak" or not _is_video_trak(moov, tbody, tend):
                continue
            chain = [start, tstart]
            found = _descend(moov, tbody, tend, [b"mdia", b"minf", b"stbl", b"stsd"], chain)
            if found is None:
                continue
            stsd_body, stsd_end = found
            entries = list(_boxes(moov, stsd_body + 8, stsd_end))  # skip version/flags/count
            if entries:
                _, estart, _, eend = entries[0]
                return chain, estart, eend
    raise Mp4BoxError("no video track with a sample entry")


def _descend(data, body, end, path, chain):
    if not path:
        return body, end
    for kind, start, cbody, cend in _boxes(data, body, end):
        if kind == path[0]:
            chain.append(start)
            return _descend(data, cbody, cend, path[1:], chain)
    return None


def _is_video_trak(data, body, end) -> bool:
    for kind, _, mbody, mend in _boxes(data, body, end):
        if kind == b"mdia":
            for hkind, _, hbody, _ in _boxes(data, mbody, mend):
                if hkind == b"hdlr":
                    return data[hbody + 8:hbody + 12] == b"vide"
    return False


def read_st3d(path: Path) -> int | None:
    """The ``st3d`` stereo mode of the video track (1 top-bottom, 2 left-right),
    or None when there is none. Raises Mp4BoxError for a file it cannot parse."""
    moov = _read_moov(Path(path))[0]
    _, estart, eend = _video_entry(moov)
    for kind, _, body, _ in _boxes(moov, estart + 8 + _VISUAL_SAMPLE_ENTRY_HEADER, eend):
        if kind == b"st3d":
            return moov[body + 4]
    return None


def _read_moov(path: Path) -> tuple[bytes, int, int, bool]:
    """(moov bytes, offset, size, whether it precedes mdat)."""
    boxes = _top_level(path)
    moov = next(((off, size) for kind, off, size in boxes if kind == b"moov"), None)
    mdat = next((off for kind, off, _ in boxes if kind == b"mdat"), None)
    if moov is None:
        raise Mp4BoxError(f"{path.name} has no moov box")
    with path.open("rb") as fh:
        fh.seek(moov[0])
        data = fh.read(moov[1])
    return data, moov[0], moov[1], mdat is not None and moov[0] < mdat


def add_st3d(path: Path, packing: str) -> None:
    """Give the video track of the MP4 at ``path`` an ``st3d`` box for ``packing``
    ("sbs" or "tb"), rewriting the file atomically. A file that already has one
    is left as it is. Raises Mp4BoxError (not an MP4) or KeyError (packing)."""
    path = Path(path)
    mode = ST3D_MODES[packing]
    if read_st3d(path) is not None:
        return
    moov, offset, size, before_mdat = _read_moov(path)
    chain, estart, eend = _video_entry(moov)
    box = struct.pack(">I4sIB", 13, b"st3d", 0, mode)
    data = bytearray(moov[:eend] + box + moov[eend:])
    for start in [*chain, estart]:
        _grow(data, start, len(box))
    if before_mdat:
        _shift_chunk_offsets(data, len(box))
    tmp = path.with_name(f".{path.name}.st3d")
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
        for kind, _, cbody, cend in _boxes(bytes(data), body, end):
            if kind in _CONTAINERS:
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
