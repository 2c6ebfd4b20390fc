"""An MP4/MOV video track's packet facts from its sample table, without reading
a packet: what the bounded probe otherwise learns by reading the whole file.

The demuxer builds its index from the ``moov`` box when the file opens, and
PyAV hands it over (``Stream.index_entries``: each sample's decoding time,
file position, size and keyframe flag). What the index lacks is each sample's
composition offset (the ``ctts`` box), which turns a decoding time into the
presentation time that the cut plan's keyframe times and the open-GOP check
need; that box is read here. Anything this cannot vouch for -- another
container, a fragmented file (its samples are not in ``moov``), samples the
edit list discards, a sample past the end of the file (a cut-off download:
the packet scan says where it stops), a count that does not match, or first
packets that do not read back as predicted -- gives None, and the probe
scans the packets as before.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Iterator
from pathlib import Path

from stereo_media.ffmpeg_runner import VIDEO_DEMUXERS
from stereo_media.packet_facts import PacketFacts

log = logging.getLogger(__name__)

MAX_MOOV_BYTES = 256 << 20  # a two-hour film's sample tables are a few MB
MAX_BOXES = 10_000  # boxes looked at on one level: a file of tiny boxes is scanned instead
CHECKED_PACKETS = 64  # read back and compared with the prediction


def indexed_facts(path: Path, container, stream) -> PacketFacts | None:
    """``stream``'s packet facts from the demuxer's index and the file's ``ctts``
    box, or None where they cannot be trusted (then scan the packets)."""
    if "mp4" not in container.format.name.split(","):
        return None
    entries = stream.index_entries
    if not len(entries) or stream.time_base is None:
        return None
    offsets = composition_offsets(path, stream.id, len(entries))
    if offsets is None:
        return None
    size = path.stat().st_size
    dts: list[int] = []
    keys: list[bool] = []
    for entry in entries:
        if entry.is_discard or entry.size <= 0 or entry.pos + entry.size > size:
            return None
        dts.append(entry.timestamp)
        keys.append(entry.is_keyframe)
    pts = [d + o for d, o in zip(dts, offsets, strict=True)] if offsets else dts
    if not _reads_back(path, stream.index, pts, keys):
        return None
    tb = float(stream.time_base)
    facts = PacketFacts()
    last = len(dts) - 1
    for i in range(last):
        facts.add(pts[i] * tb, max(0, dts[i + 1] - dts[i]) * tb, keys[i])
    facts.add(pts[last] * tb, _last_duration(stream, dts) * tb, keys[last])
    return facts


def _last_duration(stream, dts: list[int]) -> int:
    """The last sample's duration (time base units): what the track's duration
    leaves after the others, else the step before it, else 0."""
    left = (stream.duration or 0) - (dts[-1] - dts[0])
    if left > 0:
        return left
    return max(0, dts[-1] - dts[-2]) if len(dts) > 1 else 0


def composition_offsets(path: Path, track_id: int, samples: int) -> list[int] | None:
    """Each sample's composition offset (its ``ctts`` box expanded; [] when the
    track has none: every sample shown at its decoding time) of the track
    ``track_id`` in the MP4 at ``path``; None when the file's boxes do not say,
    or its sample count is not ``samples``."""
    try:
        with path.open("rb") as fh:
            moov = _top_level_box(fh, path.stat().st_size, b"moov")
    except OSError:
        return None
    if moov is None:
        return None
    stbl = _track_tables(moov, track_id)
    if stbl is None:
        return None
    sizes = _child(moov, *stbl, b"stsz") or _child(moov, *stbl, b"stz2")
    if sizes is None or sizes[0] + 12 > sizes[1]:
        return None
    if struct.unpack_from(">I", moov, sizes[0] + 8)[0] != samples:
        return None
    ctts = _child(moov, *stbl, b"ctts")
    if ctts is None:
        return []
    start, end = ctts
    if start + 8 > end:
        return None
    count = struct.unpack_from(">I", moov, start + 4)[0]
    if start + 8 + 8 * count > end:
        return None
    offsets: list[int] = []
    for run, offset in struct.iter_unpack(">Ii", moov[start + 8:start + 8 + 8 * count]):
        if len(offsets) + run > samples:
            return None
        offsets.extend([offset] * run)
    return offsets if len(offsets) == samples else None


def _reads_back(path: Path, index: int, pts: list[int], keys: list[bool]) -> bool:
    """True when the first packets of stream ``index``, demuxed, have the
    presentation times (relative to the first) and keyframe flags predicted."""
    import av

    count = min(CHECKED_PACKETS, len(pts))
    seen: list[tuple[int, bool]] = []
    try:
        with av.open(str(path), options={"format_whitelist": VIDEO_DEMUXERS}) as container:
            for packet in container.demux(container.streams[index]):
                if packet.size == 0:
                    continue
                if packet.pts is None:
                    return False
                seen.append((packet.pts, packet.is_keyframe))
                if len(seen) == count:
                    break
    except (av.error.FFmpegError, OSError) as exc:
        log.info("the packets of %s do not read back: %s", path, exc)
        return False
    expected = [(t - pts[0], k) for t, k in zip(pts[:count], keys[:count], strict=True)]
    actual = [(t - seen[0][0], k) for t, k in seen] if seen else []
    if actual != expected:
        log.info("the sample table of %s does not match its packets; scanning them", path)
        return False
    return True


def _top_level_box(fh, size: int, kind: bytes) -> bytes | None:
    """The body of the first top-level box ``kind``, read by seeking from box to box."""
    pos = 0
    for _ in range(MAX_BOXES):
        fh.seek(pos)
        box = _header(fh.read(16), 0, size - pos)
        if box is None:
            return None
        found, header, length = box
        if found == kind:
            if length - header > MAX_MOOV_BYTES:
                return None
            fh.seek(pos + header)
            return fh.read(length - header)
        pos += length
    return None


def _children(data: bytes, start: int, end: int) -> Iterator[tuple[bytes, int, int]]:
    """(kind, body start, end) of each box between ``start`` and ``end``."""
    pos = start
    for _ in range(MAX_BOXES):
        box = _header(data, pos, end)
        if box is None:
            return
        kind, header, length = box
        yield kind, pos + header, pos + length
        pos += length


def _header(data: bytes, pos: int, end: int) -> tuple[bytes, int, int] | None:
    """(kind, header length, box length) of the box at ``pos`` of ``data``; None
    where no whole box starts there before ``end``."""
    if pos + 8 > min(end, len(data)):
        return None
    length, kind = struct.unpack_from(">I4s", data, pos)
    header = 8
    if length == 1:
        if pos + 16 > len(data):
            return None
        length, header = struct.unpack_from(">Q", data, pos + 8)[0], 16
    elif length == 0:  # to the end
        length = end - pos
    if length < header or pos + length > end:
        return None
    return kind, header, length


def _child(data: bytes, start: int, end: int, kind: bytes) -> tuple[int, int] | None:
    return next(((s, e) for k, s, e in _children(data, start, end) if k == kind), None)


def _track_tables(moov: bytes, track_id: int) -> tuple[int, int] | None:
    """(start, end) of the ``stbl`` box of the track ``track_id`` in ``moov``."""
    for kind, start, end in _children(moov, 0, len(moov)):
        if kind != b"trak":
            continue
        header = _child(moov, start, end, b"tkhd")
        if header is None or header[0] + 24 > header[1]:
            continue
        version = moov[header[0]]
        if struct.unpack_from(">I", moov, header[0] + (20 if version == 1 else 12))[0] != track_id:
            continue
        box = (start, end)
        for inner in (b"mdia", b"minf", b"stbl"):
            child = _child(moov, *box, inner)
            if child is None:
                return None
            box = child
        return box
    return None
