"""What an MPEG-TS programme map says: each programme's streams, a teletext stream's pages.

A DVB recording's teletext stream lists its pages in the PMT (EN 300 468
teletext descriptor, tag 0x56, or the VBI teletext descriptor, 0x46): for each,
an ISO 639-2 language, a type (2: subtitles, 5: subtitles for the hard of
hearing, 1: the initial page) and the page number. FFmpeg keeps only the
languages ("deu,deu,eng" on the stream), not which page is which, so
:func:`read_programme_map` reads the tables themselves: the PAT (PID 0) names
each programme's PMT, whose entry for the stream's PID holds the descriptor.
A recording of a whole multiplex carries several programmes (channels), each
with its own video, audio and subtitles: :meth:`ProgrammeMap.programmes` says which
streams belong together, which FFmpeg's PyAV does not expose.
Sections are taken only when their CRC checks out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SYNC = 0x47
PACKET_SIZES = (188, 192)  # broadcast TS; Blu-ray M2TS (a 4-byte time code first)
PAT_PID = 0x0000
PAT_TABLE, PMT_TABLE = 0x00, 0x02
TELETEXT_DESCRIPTORS = (0x56, 0x46)
SUBTITLE_TYPES = {2: False, 5: True}  # teletext_type -> for the hard of hearing
MAX_SCAN_BYTES = 8 << 20  # the tables repeat every ~100 ms: the first of them will do


@dataclass(frozen=True)
class TeletextPage:
    """One subtitle page of a teletext stream (as its descriptor lists it, or
    as its page headers flag it: then with the stream's language, if any)."""

    number: str  # "888": magazine (8 for 0) and the page's two hex digits
    language: str | None = None  # ISO 639-2, as broadcast ("deu", "eng")
    hard_of_hearing: bool = False


def mpeg_crc32(data: bytes) -> int:
    """CRC-32/MPEG-2 of ``data`` (a section with its CRC included gives 0)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
            crc &= 0xFFFFFFFF
    return crc


@dataclass(frozen=True)
class ProgrammeMap:
    """The programme tables of a transport stream, read once (:func:`read_programme_map`)."""

    tables: tuple[bytes, ...] = ()  # the first PMT section of each programme

    def pages(self, pid: int) -> list[TeletextPage]:
        """The subtitle pages listed for the stream on ``pid``, in the table's
        order; none when no table lists any."""
        for pmt in self.tables:
            for es_pid, descriptors in _elementary_streams(pmt):
                if es_pid == pid:
                    return list(_teletext_pages(descriptors))
        return []

    def programmes(self) -> list[set[int]]:
        """The PIDs of each programme's streams (a recording of a whole
        multiplex carries several channels), in the order of their PMT PIDs."""
        return [{pid for pid, _ in _elementary_streams(pmt)} for pmt in self.tables]


def read_programme_map(path: Path, *, max_bytes: int = MAX_SCAN_BYTES) -> ProgrammeMap:
    """The programme map of the transport stream ``path``, from its first
    ``max_bytes``; an empty one when it cannot be read."""
    return ProgrammeMap(tuple(_programme_tables(path, max_bytes)))


def _programme_tables(path: Path, max_bytes: int) -> list[bytes]:
    """The first PMT section of each programme the first PAT of ``path`` names."""
    try:
        with Path(path).open("rb") as fh:
            data = fh.read(max_bytes)
    except OSError:
        return []
    size = _packet_size(data)
    if size is None:
        return []
    pmt_pids: set[int] = set()
    for section in _sections(data, PAT_PID, size):
        if section[0] == PAT_TABLE:
            pmt_pids |= _programme_maps(section)
        if pmt_pids:
            break
    tables = []
    for pmt in sorted(pmt_pids):
        table = next((section for section in _sections(data, pmt, size)
                      if section[0] == PMT_TABLE), None)
        if table is not None:
            tables.append(table)
    return tables


def _packet_size(data: bytes) -> int | None:
    """188 or 192 where the first packets (up to three) start with the sync byte."""
    for size in PACKET_SIZES:
        sync = size - 188  # an M2TS packet's sync byte follows its time code
        count = min(3, (len(data) - sync) // size)
        if count and all(data[sync + k * size] == SYNC for k in range(count)):
            return size
    return None


def _sections(data: bytes, pid: int, size: int) -> Iterator[bytes]:
    """The complete PSI sections carried on ``pid``, CRC checked."""
    start = size - 188
    pending: bytes | None = None  # a section begun, waiting for its next packets
    for at in range(start, len(data) - 187, size):
        packet = data[at:at + 188]
        if packet[0] != SYNC or ((packet[1] & 0x1F) << 8 | packet[2]) != pid:
            continue
        control = packet[3] >> 4 & 3
        if not control & 1:  # no payload
            continue
        payload = packet[4:]
        if control & 2:  # an adaptation field first
            payload = payload[1 + payload[0]:]
        if packet[1] & 0x40 and payload:  # a section starts after the pointer field
            pointer = payload[0]
            if pending is not None:  # what comes before it ends the one pending
                yield from _complete(pending + payload[1:1 + pointer])[0]
            pending = payload[1 + pointer:]
        elif pending is not None:
            pending += payload
        else:
            continue
        sections, pending = _complete(pending)
        yield from sections


def _complete(buffer: bytes) -> tuple[list[bytes], bytes | None]:
    """(the whole sections at the head of ``buffer`` whose CRC checks out, the
    rest: None when only stuffing is left)."""
    done: list[bytes] = []
    while len(buffer) >= 3 and buffer[0] != 0xFF:
        length = 3 + ((buffer[1] & 0x0F) << 8 | buffer[2])
        if len(buffer) < length:
            return done, buffer
        section, buffer = buffer[:length], buffer[length:]
        if mpeg_crc32(section) == 0:
            done.append(section)
    return done, (buffer if buffer and buffer[0] != 0xFF else None)


def _programme_maps(pat: bytes) -> set[int]:
    """The PMT PIDs a PAT section names (programme 0 is the network's, skipped)."""
    body = pat[8:-4]
    return {(body[i + 2] & 0x1F) << 8 | body[i + 3] for i in range(0, len(body) - 3, 4)
            if body[i] << 8 | body[i + 1]}


def _elementary_streams(pmt: bytes) -> Iterator[tuple[int, bytes]]:
    """(PID, descriptors) of each stream a PMT section lists."""
    at = 12 + ((pmt[10] & 0x0F) << 8 | pmt[11])
    end = len(pmt) - 4
    while at + 5 <= end:
        info = (pmt[at + 3] & 0x0F) << 8 | pmt[at + 4]
        yield (pmt[at + 1] & 0x1F) << 8 | pmt[at + 2], pmt[at + 5:at + 5 + info]
        at += 5 + info


def _teletext_pages(descriptors: bytes) -> Iterator[TeletextPage]:
    at = 0
    while at + 2 <= len(descriptors):
        tag, length = descriptors[at], descriptors[at + 1]
        body = descriptors[at + 2:at + 2 + length]
        at += 2 + length
        if tag not in TELETEXT_DESCRIPTORS:
            continue
        for i in range(0, len(body) - 4, 5):
            kind, magazine = body[i + 3] >> 3, body[i + 3] & 7
            if kind in SUBTITLE_TYPES:
                language = body[i:i + 3].decode("latin-1").strip().lower() or None
                yield TeletextPage(f"{magazine or 8}{body[i + 4]:02x}", language,
                                    SUBTITLE_TYPES[kind])
