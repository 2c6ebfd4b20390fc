"""Reading an MP4/MOV box tree: the boxes themselves, and what each track holds.

Pure Python on box headers (ISO 14496-12): used to add the ``st3d`` box
(``stereo_boxes``) and to name the tracks PyAV cannot, such as a GoPro's
telemetry, a data stream whose sample entry (``gpmd``) PyAV does not expose.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

CONTAINER_BOXES = {b"moov", b"trak", b"mdia", b"minf", b"stbl"}


class Mp4BoxError(ValueError):
    """The file is not an MP4 this module can read or rewrite."""


def boxes(data: bytes, start: int, end: int) -> Iterator[tuple[bytes, int, int, int]]:
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


def top_level_boxes(path: Path) -> list[tuple[bytes, int, int]]:
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


def read_moov(path: Path) -> tuple[bytes, int, int, bool]:
    """(moov bytes, offset, size, whether it precedes mdat)."""
    found = top_level_boxes(path)
    moov = next(((off, size) for kind, off, size in found if kind == b"moov"), None)
    mdat = next((off for kind, off, _ in found if kind == b"mdat"), None)
    if moov is None:
        raise Mp4BoxError(f"{path.name} has no moov box")
    with path.open("rb") as fh:
        fh.seek(moov[0])
        data = fh.read(moov[1])
    return data, moov[0], moov[1], mdat is not None and moov[0] < mdat


def descend(data: bytes, body: int, end: int, path: list[bytes],
            chain: list[int]) -> tuple[int, int] | None:
    """(payload start, end) of the box ``path`` leads to under data[body:end],
    appending each box's start on the way to ``chain``; None when one is missing."""
    if not path:
        return body, end
    for kind, start, cbody, cend in boxes(data, body, end):
        if kind == path[0]:
            chain.append(start)
            return descend(data, cbody, cend, path[1:], chain)
    return None


def handler_type(data: bytes, trak_body: int, trak_end: int) -> bytes | None:
    """The ``hdlr`` handler type of a ``trak`` (``vide``, ``soun``, ``meta``, ``tmcd``...)."""
    found = descend(data, trak_body, trak_end, [b"mdia", b"hdlr"], [])
    return data[found[0] + 8:found[0] + 12] if found else None


def sample_entries(data: bytes, trak_body: int, trak_end: int) -> list[tuple[int, int]]:
    """(start, end) of each sample entry in a ``trak``'s ``stsd``."""
    found = descend(data, trak_body, trak_end, [b"mdia", b"minf", b"stbl", b"stsd"], [])
    if found is None:
        return []
    return [(start, end) for _, start, _, end in boxes(data, found[0] + 8, found[1])]


def track_formats(path: Path) -> list[str]:
    """The sample-entry type of each track (``avc1``, ``mp4a``, ``tmcd``, ``gpmd``...),
    in file order, which is the order of the streams ffmpeg reads from it; "" for a
    track without one. Raises Mp4BoxError (and OSError) for a file it cannot read."""
    moov = read_moov(Path(path))[0]
    out = []
    for kind, _, body, end in boxes(moov, 0, len(moov)):
        if kind != b"moov":
            continue
        for tkind, _, tbody, tend in boxes(moov, body, end):
            if tkind == b"trak":
                entries = sample_entries(moov, tbody, tend)
                fourcc = moov[entries[0][0] + 4:entries[0][0] + 8] if entries else b""
                out.append(fourcc.decode("latin-1"))
    return out
