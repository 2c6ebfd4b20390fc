from fractions import Fraction

import av
import numpy as np
import pytest

from stereo_inference.codecs import choose_encoder
from stereo_inference.encode import StereoEncoder

TIME_BASE = Fraction(1, 12)


def encode(path, frames, *, size, fmt="rgb24"):
    encoder = StereoEncoder(path, size=size, fps=12, time_base=TIME_BASE, crf=23,
                            preset="ultrafast")
    encoder.write(frames, fmt, pts=list(range(len(frames))), durations=[1] * len(frames))
    encoder.close()
    return path


def decoded(path):
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        return [(f.width, f.height, f.pts) for f in container.decode(stream)]


def test_every_frame_is_written_at_its_timestamp(tmp_path):
    frames = np.random.default_rng(0).integers(0, 255, (6, 32, 64, 3), dtype=np.uint8)
    out = encode(tmp_path / "o.mp4", frames, size=(64, 32))
    got = decoded(out)
    assert [(w, h) for w, h, _ in got] == [(64, 32)] * 6
    assert len({pts for _, _, pts in got}) == 6


def test_planar_yuv_frames_are_accepted(tmp_path):
    frames = np.full((3, 32 * 3 // 2, 64), 128, np.uint8)
    assert len(decoded(encode(tmp_path / "o.mp4", frames, size=(64, 32), fmt="yuv420p"))) == 3


def test_frames_of_another_size_are_scaled_to_the_output_size(tmp_path):
    frames = np.zeros((2, 30, 62, 3), np.uint8)  # an odd half-layout eye, say
    assert [(w, h) for w, h, _ in decoded(encode(tmp_path / "o.mp4", frames,
                                                   size=(64, 32)))] == [(64, 32)] * 2



def test_a_thread_budget_caps_the_encoders_threads(tmp_path):
    capped = StereoEncoder(tmp_path / "a.mp4", size=(64, 32), fps=12, time_base=TIME_BASE,
                           crf=23, preset="ultrafast", threads=1)
    free = StereoEncoder(tmp_path / "b.mp4", size=(64, 32), fps=12, time_base=TIME_BASE,
                         crf=23, preset="ultrafast")
    assert capped.video.codec_context.thread_count == 1
    assert free.video.codec_context.thread_count != 1
    capped.abort()
    free.abort()


@pytest.mark.parametrize(("codec", "pix_fmt", "decoded_as", "profile_bits"), [
    ("x265", None, "hevc", 8),
    ("x265", "yuv420p10le", "hevc", 10),
    ("av1", None, "av1", 8),
    ("av1", "yuv420p10le", "av1", 10),
    ("x264", "yuv420p10le", "h264", 10),
])
def test_each_codec_writes_a_file_that_decodes_at_the_pixel_format_asked(
        tmp_path, codec, pix_fmt, decoded_as, profile_bits):
    choice = choose_encoder(codec, crf=30, preset="ultrafast", pix_fmt=pix_fmt)
    frames = np.random.default_rng(1).integers(0, 255, (4, 64 * 3 // 2, 128), dtype=np.uint8)
    encoder = StereoEncoder(tmp_path / "o.mp4", size=(128, 64), fps=12, time_base=TIME_BASE,
                            crf=30, preset="ultrafast", packing="sbs", encoder=choice)
    encoder.write(frames, "yuv420p", pts=list(range(4)), durations=[1] * 4)
    encoder.close()
    with av.open(str(tmp_path / "o.mp4")) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name in (decoded_as, "libdav1d")
        pictures = list(container.decode(stream))
    assert len(pictures) == 4
    assert ("10" in pictures[0].format.name) == (profile_bits == 10)
    # the picture survived: mid-grey noise stays mid-grey on average
    assert abs(float(pictures[1].to_ndarray(format="gray").mean()) - 127) < 20


def test_a_bitrate_replaces_the_constant_quality():
    choice = choose_encoder("x265", crf=20, bitrate_kbps=800)
    assert choice.bit_rate == 800_000 and "crf" not in choice.options
    assert choose_encoder("av1", crf=20).options["crf"] == "25"  # x264's 20 on SVT's scale
    assert not choose_encoder("av1").has_sei and choose_encoder("x265").is_hevc


def test_an_hdr_source_is_hevc_whatever_the_codec_asked(tmp_path):
    choice = choose_encoder("av1", hdr_x265_params="log-level=error:hdr10=1")
    assert (choice.name, choice.pix_fmt, choice.tag) == ("libx265", "yuv420p10le", "hvc1")
    assert choice.options["x265-params"] == "log-level=error:hdr10=1"


def packets(path):
    with av.open(str(path)) as container:
        return [bytes(p) for p in container.demux(container.streams.video[0]) if p.size]


def test_wrapped_frames_encode_to_the_same_stream_as_copied_ones(tmp_path, monkeypatch):
    # yuv420p arrays are handed to x264 as they are (planes.to_frame), not copied
    rng = np.random.default_rng(1)
    frames = rng.integers(16, 235, (5, 48 * 3 // 2, 64), dtype=np.uint8)
    wrapped = packets(encode(tmp_path / "w.mp4", frames, size=(64, 48), fmt="yuv420p"))
    from stereo_inference import planes

    monkeypatch.setattr(planes, "WRAPPED", frozenset())
    copied = packets(encode(tmp_path / "c.mp4", frames, size=(64, 48), fmt="yuv420p"))
    assert len(wrapped) == 5
    assert wrapped == copied
