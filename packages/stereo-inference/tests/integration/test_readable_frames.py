"""A damaged film converts as players show it: packets the decoder refuses
and frames it then hands back out of order are skipped; a file too damaged to
be a film fails, saying so."""

import subprocess

import av
import pytest
from stereo_media.ffmpeg import ffmpeg_path

from stereo_inference import convert_file, readable_frames
from stereo_inference.errors import InvalidInputError
from stereo_inference.readable_frames import ReadableFrames

FRAMES = 96  # 4 s at 24 a second, a keyframe each second, B-frames


def damaged(tmp_path, broken: slice):
    """A 4 s H.264 MP4 whose pictures ``broken`` (by packet order) have their
    first NAL length overwritten: the decoder refuses each of them."""
    clip = tmp_path / "clip.mp4"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=160x96:rate=24:duration=4", "-c:v", "libx264", "-g", "24",
                    str(clip)], check=True, timeout=60)
    with av.open(str(clip)) as container:
        packets = [p.pos for p in container.demux(video=0) if p.size]
    data = bytearray(clip.read_bytes())
    for pos in packets[broken]:
        data[pos:pos + 4] = b"\xff\xff\xff\xff"
    out = tmp_path / "damaged.mp4"
    out.write_bytes(bytes(data))
    return out


def test_a_damaged_films_frames_come_out_in_the_order_they_play(tmp_path, monkeypatch):
    # every other picture of the last three seconds lost: the decoder then
    # hands some frames back out of order, which no muxer takes (the whole
    # conversion failed at its end with "Invalid argument")
    monkeypatch.setattr(readable_frames, "MAX_SKIPPED_SHARE", 1.0)  # a film, however damaged
    source = damaged(tmp_path, slice(24, None, 2))
    with av.open(str(source)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        frames = ReadableFrames(container, stream, source.name)
        times = [f.pts for f in frames]
    assert frames.skipped == 36 and frames.disordered > 0
    assert times == sorted(set(times))
    assert 24 < len(times) <= FRAMES - 36

    result = convert_file(source, tmp_path / "out.mp4", mode="half-sbs")
    assert result.frames > 24  # the intact first second, and what decodes after it


def test_a_file_too_damaged_to_be_a_film_fails_saying_so(tmp_path):
    # 36 of 96 pictures refused: past the share a damaged film loses
    source = damaged(tmp_path, slice(24, None, 2))
    with pytest.raises(InvalidInputError, match=f"too damaged to convert: 36 of its {FRAMES}"):
        convert_file(source, tmp_path / "out.mp4", mode="half-sbs")
    assert not (tmp_path / "out.mp4").exists()


def test_a_few_damaged_pictures_are_skipped(tmp_path, caplog):
    source = damaged(tmp_path, slice(30, 75, 10))  # 5 pictures
    with caplog.at_level("WARNING", logger="stereo_inference.readable_frames"):
        result = convert_file(source, tmp_path / "out.mp4", mode="half-sbs")
    assert FRAMES - 10 <= result.frames < FRAMES
    assert "5 damaged video packet(s)" in caplog.text
