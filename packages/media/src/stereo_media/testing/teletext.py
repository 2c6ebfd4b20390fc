"""DVB teletext as a broadcast carries it, written for test recordings.

A teletext service (ETS 300 706) is a set of pages of 40x24 characters, sent
packet by packet: packet 0 is a page's header (its number and flags: C4
erase, C6 subtitle), packets 1-23 its rows, and a page is complete when the
next header of its magazine arrives (here a "time filling" header, page FF,
right after it). DVB carries the packets in PES (EN 300 472): a data
identifier, then 46-byte data units, each byte of a packet's payload with its
bits in transmission order (reversed). Addresses and page numbers are Hamming
8/4 coded (``stereo_media.teletext``), text bytes have odd parity.

:func:`subtitle_page` shows a line of text on a subtitle page (888 by
default) and :func:`clear_page` empties it; :func:`index_page` is an ordinary
page (100), which subtitle decoding must leave out. Each returns one PES
data field, ready to be muxed with a presentation time.
:func:`describe_teletext` writes into a recording's programme map which page
is which (FFmpeg's muxer, given no pages, says each is an initial page).
"""

from __future__ import annotations

from pathlib import Path

from stereo_media.teletext import hamming, reversed_bits
from stereo_media.ts_program_map import PMT_TABLE, TELETEXT_DESCRIPTORS, mpeg_crc32

SUBTITLE_UNIT, STUFFING_UNIT = 0x03, 0xFF  # data_unit_id: EBU teletext subtitle data, stuffing
UNIT_LENGTH = 0x2C  # 44 bytes after the id and length
FIELD_LINE = 0xE7  # reserved bits, first field, line 7
FRAMING_CODE = 0xE4
DATA_IDENTIFIER = 0x10  # EBU data, EN 300 472
START_BOX, END_BOX = 0x0B, 0x0A  # a subtitle's text is boxed (shown over the picture)
FILLER_PAGE = 0xFF  # a header that completes the page before it and starts none


def odd_parity(char: int) -> int:
    """``char`` (7 bits) with the odd parity bit teletext and CEA-608 captions send."""
    return char | (0x80 if bin(char).count("1") % 2 == 0 else 0)


def _packet(magazine: int, row: int, payload: list[int]) -> bytes:
    """One data unit: packet ``row`` of ``magazine`` (8 is sent as 0)."""
    address = [hamming((magazine & 7) | (row & 1) << 3), hamming(row >> 1)]
    body = [reversed_bits(b) for b in address + payload]
    return bytes([SUBTITLE_UNIT, UNIT_LENGTH, FIELD_LINE, FRAMING_CODE, *body])


def _header(magazine: int, page: int, *, subtitle: bool) -> bytes:
    """Packet 0 of ``page`` (two BCD digits), erasing what it showed before."""
    flags = [page & 0xF, page >> 4, 0, 0x8, 0, 0x8 if subtitle else 0, 0, 0]  # C4, C6
    text = [odd_parity(c) for c in b"STEREOSPOT TELETEXT SERVICE     "]
    return _packet(magazine, 0, [hamming(n) for n in flags] + text)


def _row(magazine: int, row: int, text: str, *, boxed: bool) -> bytes:
    chars = list(text.encode("ascii"))
    if boxed:
        chars = [START_BOX, START_BOX, *chars, END_BOX, END_BOX]
    chars = (chars + [0x20] * 40)[:40]
    return _packet(magazine, row, [odd_parity(c) for c in chars])


def _pes(units: list[bytes]) -> bytes:
    """The PES data field: as many units as make the PES 184-byte aligned."""
    while (len(units) + 1) % 4:  # 1 + 46 n + 45 header bytes = 184 k
        units.append(bytes([STUFFING_UNIT, UNIT_LENGTH]) + b"\xff" * UNIT_LENGTH)
    return bytes([DATA_IDENTIFIER]) + b"".join(units)


def subtitle_page(text: str, *, page: int = 0x888, row: int = 22) -> bytes:
    """A PES data field showing ``text`` on subtitle ``page`` (three hex digits)."""
    magazine, number = page >> 8, page & 0xFF
    return _pes([_header(magazine, number, subtitle=True),
                 _row(magazine, row, text, boxed=True),
                 _header(magazine, FILLER_PAGE, subtitle=False)])


def clear_page(*, page: int = 0x888) -> bytes:
    """A PES data field emptying subtitle ``page`` (the subtitle ends)."""
    magazine, number = page >> 8, page & 0xFF
    return _pes([_header(magazine, number, subtitle=True),
                 _header(magazine, FILLER_PAGE, subtitle=False)])


def index_page(text: str = "INDEX PAGE", *, page: int = 0x100) -> bytes:
    """A PES data field with an ordinary page: not a subtitle."""
    magazine, number = page >> 8, page & 0xFF
    return _pes([_header(magazine, number, subtitle=False),
                 _row(magazine, 1, text, boxed=False),
                 _header(magazine, FILLER_PAGE, subtitle=False)])


def describe_teletext(path: Path, pid: int, pages: list[tuple[int, int]]) -> None:
    """Write ``pages`` ((teletext_type, page as three hex digits), one per
    language FFmpeg wrote) into every teletext descriptor the programme map of
    the MPEG-TS ``path`` has for the stream on ``pid``, CRC renewed. The PMT
    must fit one packet (FFmpeg's do)."""
    data = bytearray(Path(path).read_bytes())
    for at in range(0, len(data) - 187, 188):
        if not data[at + 1] & 0x40 or data[at + 3] >> 4 != 1:  # a section start, payload only
            continue
        start = at + 5 + data[at + 4]  # after the pointer field
        if data[start] != PMT_TABLE:
            continue
        end = start + 3 + ((data[start + 1] & 0x0F) << 8 | data[start + 2])
        es = start + 12 + ((data[start + 10] & 0x0F) << 8 | data[start + 11])
        while es + 5 <= end - 4:
            info = (data[es + 3] & 0x0F) << 8 | data[es + 4]
            if (data[es + 1] & 0x1F) << 8 | data[es + 2] == pid:
                _describe(data, es + 5, es + 5 + info, pages)
            es += 5 + info
        data[end - 4:end] = mpeg_crc32(bytes(data[start:end - 4])).to_bytes(4, "big")
    Path(path).write_bytes(bytes(data))


def _describe(data: bytearray, at: int, end: int, pages: list[tuple[int, int]]) -> None:
    while at + 2 <= end:
        tag, length = data[at], data[at + 1]
        if tag in TELETEXT_DESCRIPTORS:
            for n, (kind, page) in enumerate(pages[:length // 5]):
                entry = at + 2 + 5 * n
                data[entry + 3] = kind << 3 | (page >> 8 & 7)
                data[entry + 4] = page & 0xFF
        at += 2 + length
