"""A teletext stream's subtitle pages are found from its page headers."""

from stereo_media.teletext import hamming, reversed_bits, subtitle_pages
from stereo_media.testing.teletext import clear_page, index_page, subtitle_page

# ETS 300 706's Hamming 8/4 codes of 0-15, first transmitted bit as bit 0
CODES = [0x15, 0x02, 0x49, 0x5E, 0x64, 0x73, 0x38, 0x2F,
         0xD0, 0xC7, 0x8C, 0x9B, 0xA1, 0xB6, 0xFD, 0xEA]


def test_hamming_codes_are_the_standards():
    assert [hamming(n) for n in range(16)] == CODES
    assert reversed_bits(0x01) == 0x80 and reversed_bits(0xE4) == 0x27


def test_only_pages_flagged_as_subtitles_are_named():
    packets = [index_page(), subtitle_page("HELLO", page=0x888), clear_page(page=0x888),
               subtitle_page("HALLO", page=0x150), index_page(page=0x777)]
    assert subtitle_pages(packets) == ["150", "888"]


def test_a_service_without_subtitles_or_damaged_data_has_none():
    assert subtitle_pages([index_page()]) == []
    damaged = bytearray(subtitle_page("HELLO"))
    for at in range(5, len(damaged), 7):  # every header byte hit by noise
        damaged[at] ^= 0x5A
    assert subtitle_pages([bytes(damaged), b"", b"\x10\x03"]) == []
