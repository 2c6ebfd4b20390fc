"""Which pages of a DVB teletext stream are subtitles.

A recording's teletext stream often carries a whole teletext service (an
index on page 100, news, weather) with the subtitles on one or a few pages
(888, 777, 150: each broadcaster its own). A page is a subtitle page when its
header (packet 0) has flag C6 set (ETS 300 706). FFmpeg's teletext decoder
turns the pages it is told into text; told every page, it would make the
index a subtitle too. :func:`subtitle_pages` reads the headers of a stream's
packets (EN 300 472 data units: each payload byte bit-reversed, addresses and
page numbers Hamming 8/4 coded) and names the subtitle pages ("888"), as the
decoder's ``txt_page`` option takes them. :func:`stream_pages` adds what the
programme map says of each (its language, whether it is for the hard of
hearing: ``stereo_media.ts_program_map``), and the pages it lists that do
not show in the packets read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from stereo_media.demuxers import av_options
from stereo_media.ts_program_map import TeletextPage

TELETEXT_UNITS = (0x02, 0x03)  # data_unit_id: EBU teletext (non-)subtitle data
UNIT_BYTES = 46  # id, length (44), field/line, framing code, 42 payload bytes
C6_SUBTITLE = 0x8  # in the header's S4 nibble
MAX_SCAN_S = 600.0  # every subtitle page of a service shows within ten minutes


def reversed_bits(byte: int) -> int:
    """``byte`` with its bit order reversed (EN 300 472 sends payload bits LSB first)."""
    return int(f"{byte:08b}"[::-1], 2)


def hamming(nibble: int) -> int:
    """Hamming 8/4 code of ``nibble``, its first transmitted bit as bit 0."""
    d1, d2, d3, d4 = ((nibble >> i) & 1 for i in range(4))
    p1, p2, p3 = 1 ^ d1 ^ d3 ^ d4, 1 ^ d1 ^ d2 ^ d4, 1 ^ d1 ^ d2 ^ d3
    p4 = 1 ^ p1 ^ d1 ^ p2 ^ d2 ^ p3 ^ d3 ^ d4
    return sum(bit << i for i, bit in enumerate((p1, d1, p2, d2, p3, d3, p4, d4)))


_NIBBLES = {hamming(n): n for n in range(16)}  # error-free codes only


def _headers(pes_data: bytes) -> Iterable[tuple[int, int, int]]:
    """(magazine 1-8, page byte, S4 nibble) of each page header in one PES data field."""
    at = 1  # after the data identifier
    while at + UNIT_BYTES <= len(pes_data):
        unit = pes_data[at:at + UNIT_BYTES]
        at += 2 + unit[1]
        if unit[0] not in TELETEXT_UNITS or unit[1] != UNIT_BYTES - 2:
            continue
        nibbles = [_NIBBLES.get(reversed_bits(b)) for b in unit[4:12]]
        first, second, units, tens, s4 = (nibbles[0], nibbles[1], nibbles[2], nibbles[3],
                                          nibbles[7])
        if first is None or second is None or (second << 1 | first >> 3) != 0:  # not packet 0
            continue
        if units is None or tens is None or s4 is None:
            continue
        yield first & 7 or 8, tens << 4 | units, s4


def subtitle_pages(packets: Iterable[bytes]) -> list[str]:
    """The subtitle pages ("888") whose headers ``packets`` (PES data fields) carry."""
    found: set[str] = set()
    for data in packets:
        for magazine, page, s4 in _headers(data):
            if s4 & C6_SUBTITLE and page != 0xFF:
                found.add(f"{magazine}{page:02x}")
    return sorted(found)


def stream_subtitle_pages(path: Path, index: int, *, max_s: float = MAX_SCAN_S) -> list[str]:
    """The subtitle pages of teletext stream ``index`` of ``path``, from its
    first ``max_s`` seconds of packets (demux only); none when it cannot be read."""
    return _scan(path, index, max_s)[0]


def _scan(path: Path, index: int, max_s: float) -> tuple[list[str], bool]:
    """(:func:`stream_subtitle_pages`, whether the scan read the whole stream)."""
    import av  # vendor import stays in this function

    whole = True

    def packets(container):
        nonlocal whole
        stream = container.streams[index]
        first = None
        for packet in container.demux(stream):
            if packet.pts is not None:
                t = float(packet.pts * packet.time_base)
                first = t if first is None else first
                if t - first > max_s:
                    whole = False
                    return
            if packet.size:
                yield bytes(packet)

    try:
        with av.open(str(path), options=av_options()) as container:
            return subtitle_pages(packets(container)), whole
    except (av.error.FFmpegError, OSError, ValueError, IndexError):
        return [], False


def stream_pages(path: Path, index: int, *, described: Sequence[TeletextPage] = (),
                 language: str | None = None, max_s: float = MAX_SCAN_S
                 ) -> tuple[TeletextPage, ...]:
    """The subtitle pages of teletext stream ``index`` of ``path``: those the
    programme map lists for it (``described``), in its order, with their languages (less
    those never sent, when the page headers were read to the end: a service
    lists pages the programme has no subtitles on), then those only the page
    headers flag, with the stream's ``language`` when it names one language
    (FFmpeg joins a descriptor's several with commas)."""
    flagged, whole = _scan(path, index, max_s)
    described = [page for page in described if page.number in flagged or not whole]
    listed = {page.number for page in described}
    single = language if language and "," not in language and language != "und" else None
    return (*described, *(TeletextPage(number, single) for number in flagged
                          if number not in listed))
