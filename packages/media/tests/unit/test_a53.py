"""Closed-caption SEI: built as A/53 says, escaped, and placed before the slices."""

from stereo_media.a53 import (
    ATSC_CC_HEADER,
    MAX_TRIPLETS,
    caption_sei,
    with_caption_sei,
)
from stereo_media.sei import START_CODE


def _unescaped(nal: bytes) -> bytes:
    return nal.replace(b"\x00\x00\x03", b"\x00\x00")


def test_the_sei_carries_the_triplets_after_the_atsc_header():
    cc = b"\xfc\x94\x20" + b"\xfc\x80\x80"
    nal = caption_sei(cc)
    assert nal[0] == 0x06  # H.264 SEI
    body = _unescaped(nal[1:])
    assert body[0] == 4  # user_data_registered_itu_t_t35
    payload = body[2:2 + body[1]]
    assert payload.startswith(ATSC_CC_HEADER)
    assert payload[len(ATSC_CC_HEADER)] == 0x40 | 2  # process_cc_data_flag, two triplets
    assert payload[len(ATSC_CC_HEADER) + 2:-1] == cc
    assert body.endswith(b"\x80")


def test_no_start_code_can_appear_inside_the_sei():
    nal = caption_sei(b"\x00\x00\x01" * 3)  # raw bytes that would read as start codes
    assert b"\x00\x00\x01" not in nal and b"\x00\x00\x00" not in nal
    assert _unescaped(nal).count(b"\x00\x00\x01") == 3


def test_more_triplets_than_cc_count_holds_are_cut_to_31():
    nal = _unescaped(caption_sei(b"\xfc\x80\x80" * 40))
    count = nal[3 + len(ATSC_CC_HEADER)]
    assert count == 0x40 | MAX_TRIPLETS


def test_the_sei_goes_before_the_first_slice_after_parameter_sets_and_other_sei():
    sps, pps, sei, idr = b"\x67\x64\x00", b"\x68\xee", b"\x06\x05\x01\x80", b"\x65\x88\x84"
    picture = START_CODE + sps + START_CODE + pps + b"\x00\x00\x01" + sei + START_CODE + idr
    out = with_caption_sei(picture, b"\xfc\x80\x80")
    before, _, after = out.partition(START_CODE + idr)
    assert after == b"" and before.startswith(picture[: -len(START_CODE + idr)])
    assert before.endswith(START_CODE + caption_sei(b"\xfc\x80\x80"))


def test_hevc_gets_a_prefix_sei_before_its_slice():
    vps, idr = b"\x40\x01\x0c", b"\x26\x01\xaf"  # VPS, then an IDR_W_RADL slice
    out = with_caption_sei(START_CODE + vps + START_CODE + idr, b"\xfc\x80\x80", hevc=True)
    sei = caption_sei(b"\xfc\x80\x80", hevc=True)
    assert sei[:2] == b"\x4e\x01"  # nal_unit_type 39
    assert out == START_CODE + vps + START_CODE + sei + START_CODE + idr


def test_a_picture_without_caption_data_is_left_as_it_is():
    picture = START_CODE + b"\x65\x88\x84"
    assert with_caption_sei(picture, None) == picture
    assert with_caption_sei(picture, b"") == picture
