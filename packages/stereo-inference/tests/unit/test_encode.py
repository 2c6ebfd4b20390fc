from fractions import Fraction

import av
import numpy as np

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
