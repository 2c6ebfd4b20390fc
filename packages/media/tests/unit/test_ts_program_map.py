"""A teletext stream's pages are read from the programme map: the PAT names the
PMT, whose teletext descriptor says each page's language and type."""

from pathlib import Path

from stereo_media.ts_program_map import TeletextPage, mpeg_crc32, read_programme_map

TELETEXT_PID, PMT_PID = 0x102, 0x1000


def _section(table: int, body: bytes) -> bytes:
    head = bytes([table, 0xB0 | (len(body) + 9) >> 8, (len(body) + 9) & 0xFF,
                  0, 1, 0xC1, 0, 0])
    section = head + body
    return section + mpeg_crc32(section).to_bytes(4, "big")


def _pat() -> bytes:
    return _section(0x00, bytes([0, 0, 0xE0, 0x10,  # programme 0: the network's
                                 0, 1, 0xE0 | PMT_PID >> 8, PMT_PID & 0xFF]))


def _pmt(entries: bytes, extra_streams: int = 0) -> bytes:
    teletext = bytes([0x56, len(entries)]) + entries
    streams = b"".join(bytes([0x06, 0xE0, 0x200 + n & 0xFF, 0xF0, 0])  # bare streams
                       for n in range(extra_streams))
    streams += bytes([0x06, 0xE0 | TELETEXT_PID >> 8, TELETEXT_PID & 0xFF,
                      0xF0 | len(teletext) >> 8, len(teletext) & 0xFF]) + teletext
    return _section(0x02, bytes([0xE1, 0x00, 0xF0, 0x00]) + streams)


def _packets(pid: int, section: bytes, *, prefix: bytes = b"") -> bytes:
    """``section`` on ``pid`` in as many 188-byte packets as it needs."""
    payload = b"\x00" + section
    out, first = b"", True
    while payload:
        chunk, payload = payload[:184], payload[184:]
        head = bytes([0x47, (0x40 if first else 0) | pid >> 8, pid & 0xFF, 0x10])
        out += prefix + head + chunk + b"\xff" * (184 - len(chunk))
        first = False
    return out


def _entry(language: str, kind: int, page: int) -> bytes:
    return language.encode() + bytes([kind << 3 | (page >> 8 & 7), page & 0xFF])


def _write(tmp: Path, data: bytes) -> Path:
    path = tmp / "rec.ts"
    path.write_bytes(data)
    return path


ENTRIES = (_entry("deu", 1, 0x100) + _entry("deu", 2, 0x150) + _entry("deu", 5, 0x777)
           + _entry("eng", 2, 0x801))


def test_the_crc_is_mpeg2s():
    assert mpeg_crc32(b"123456789") == 0x0376E6E7  # the standard check value
    assert mpeg_crc32(_pat()) == 0  # a section with its CRC checks to zero


def test_subtitle_pages_are_named_with_language_and_kind(tmp_path):
    path = _write(tmp_path, _packets(0, _pat()) + _packets(PMT_PID, _pmt(ENTRIES)))
    # the initial page (type 1) is not a subtitle; magazine 0 is page 8xx
    assert read_programme_map(path).pages(TELETEXT_PID) == [
        TeletextPage("150", "deu"), TeletextPage("777", "deu", True),
        TeletextPage("801", "eng")]
    assert read_programme_map(path).pages(0x1FF) == []


def test_a_programme_map_over_two_packets_in_blu_ray_packets_is_read(tmp_path):
    pmt = _pmt(ENTRIES * 8, extra_streams=12)
    assert len(pmt) > 184
    data = (_packets(0, _pat(), prefix=b"\0\0\0\0")
            + _packets(PMT_PID, pmt, prefix=b"\0\0\0\0"))
    assert len(read_programme_map(_write(tmp_path, data)).pages(TELETEXT_PID)) == 24


def test_a_damaged_table_or_a_file_that_is_no_stream_gives_none(tmp_path):
    damaged = bytearray(_pmt(ENTRIES))
    damaged[-9] ^= 0x01  # one bit of a page number
    data = _packets(0, _pat()) + _packets(PMT_PID, bytes(damaged))
    assert read_programme_map(_write(tmp_path, data)).pages(TELETEXT_PID) == []
    assert read_programme_map(_write(tmp_path, b"not a transport stream" * 40)).pages(1) == []
    assert read_programme_map(tmp_path / "missing.ts").pages(1) == []
