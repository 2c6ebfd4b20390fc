"""A still picture or a sound file uploaded instead of a video is named in the refusal."""

import pytest

from stereo_media.bounded_probe import picture_format, sound_format


@pytest.mark.parametrize(("head", "name"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "PNG"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF", "JPEG"),
    (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "WebP"),
    (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00", "HEIF"),
    (b"II*\x00\x08\x00\x00\x00", "TIFF"),
])
def test_picture_signatures_are_named(head, name):
    assert picture_format(head) == name


@pytest.mark.parametrize("head", [
    b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00",  # an MP4
    b"\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00",  # a MOV
    b"RIFF\x24\x00\x00\x00AVI LIST",  # an AVI
    b"\x1aE\xdf\xa3\x9fB\x86\x81\x01",  # a Matroska/WebM
    b"GIF89a\xa0\x00`\x00",  # an animated GIF is read as a video
    b"G\x40\x00\x10\x00\x00\xb0\x0d",  # an MPEG-TS
])
def test_video_signatures_are_not_pictures(head):
    assert picture_format(head) is None


@pytest.mark.parametrize(("head", "name"), [
    (b"ID3\x04\x00\x00\x00\x00\x00\x23TSSE", "MP3"),
    (b"fLaC\x00\x00\x00\x22\x10\x00", "FLAC"),
    (b"RIFF\x24\x08\x00\x00WAVEfmt ", "WAV"),
])
def test_sound_signatures_are_named(head, name):
    assert sound_format(head) == name


@pytest.mark.parametrize("head", [
    b"\x00\x00\x00\x20ftypM4A \x00\x00\x02\x00",  # an M4A is an MP4: probed for video
    b"RIFF\x24\x00\x00\x00AVI LIST",  # an AVI
    b"\x1aE\xdf\xa3\x9fB\x86\x81\x01",  # a Matroska/WebM
])
def test_video_signatures_are_not_sounds(head):
    assert sound_format(head) is None
