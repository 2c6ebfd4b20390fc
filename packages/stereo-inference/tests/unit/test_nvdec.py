"""Decoding into batches on the device (``nvdec``), exercised with a CPU device.

A CPU ``DevicePlanes`` opens no hwaccel, so FFmpeg hands software frames over;
everything after the decoder (DLPack views of the planes, NV12's chroma
de-interleaved by the copy, batches handed over as tensors, the switch back
to the software path at an interlaced frame) is the code a GPU runs.
"""

import av
import numpy as np
import pytest
from stereo_media.testing.media import make_video

from stereo_inference import decode, nvdec, planes
from stereo_inference.decode import FrameReader

torch = pytest.importorskip("torch")


def frame_of(array: np.ndarray) -> av.VideoFrame:
    return planes.to_frame(array, "yuv420p")


def random_yuv(h: int, w: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (h * 3 // 2, w), dtype=np.uint8)


@pytest.mark.parametrize("fmt", ["yuv420p", "nv12", "yuvj420p"])
def test_a_frames_planes_land_in_the_batch_in_the_engines_layout(fmt):
    want = random_yuv(48, 64)
    frame = frame_of(want)
    if fmt == "nv12":  # what NVDEC gives
        frame = frame.reformat(format=fmt)
    elif fmt == "yuvj420p":  # a full-range (JPEG-style) source, its samples as they are
        frame = av.VideoFrame.from_ndarray(want, format=fmt)
    device = nvdec.DevicePlanes("cpu")
    batch = device.batch_array((64, 48), 2)
    batch.fill_(7)
    device.read_into(frame, batch[1])
    assert isinstance(batch, torch.Tensor)
    np.testing.assert_array_equal(batch[1].numpy(), want)
    assert (batch[0] == 7).all()  # only its own slot written


def test_a_frame_of_another_size_or_kind_is_brought_to_the_batchs():
    want = np.full((48 * 3 // 2, 64), 90, np.uint8)
    want[48:48 + 12] = 60  # U
    want[48 + 12:] = 200  # V
    device = nvdec.DevicePlanes("cpu")
    out = device.batch_array((64, 48), 1)[0]
    device.read_into(frame_of(want).reformat(width=128, height=96), out)  # a size change
    np.testing.assert_array_equal(out.numpy(), want)
    device.read_into(frame_of(want).reformat(format="yuv422p"), out)  # a software fallback
    np.testing.assert_array_equal(out.numpy(), want)


def read_all(path, **kw):
    options = dict(eye_size=(64, 48), depth_size=None, eye_format="yuv420p", batch_size=5)
    reader = FrameReader(path, **{**options, **kw})
    try:
        return list(reader)
    finally:
        reader.close()


def frames_of(batches) -> tuple[list, np.ndarray]:
    eyes = [b.eyes.numpy() if isinstance(b.eyes, torch.Tensor) else b.eyes for b in batches]
    return [p for b in batches for p in b.pts], np.concatenate(eyes)


def test_the_reader_hands_device_batches_of_the_software_paths_frames(tmp_path):
    clip = make_video(tmp_path / "c.mp4", seconds=1.0, size=(64, 48), fps=12, audio=False)
    got = read_all(clip, nvdec=nvdec.DevicePlanes("cpu"))
    assert [len(b.pts) for b in got] == [5, 5, 2]
    assert all(isinstance(b.eyes, torch.Tensor) and b.depth_rgb is None for b in got)
    pts, eyes = frames_of(got)
    want_pts, want = frames_of(read_all(clip))
    assert pts == want_pts
    np.testing.assert_array_equal(eyes, want)


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_a_phone_video_is_turned_upright_as_the_software_path_turns_it(tmp_path, rotation):
    clip = make_video(tmp_path / "c.mp4", seconds=0.5, size=(64, 48), fps=12, audio=False)
    size = (48, 64) if rotation % 180 else (64, 48)  # the picture as displayed
    got = read_all(clip, eye_size=size, rotation=rotation, nvdec=nvdec.DevicePlanes("cpu"))
    assert all(isinstance(b.eyes, torch.Tensor) for b in got)
    _, eyes = frames_of(got)
    _, want = frames_of(read_all(clip, eye_size=size, rotation=rotation))
    assert eyes.shape == want.shape == (6, size[1] * 3 // 2, size[0])
    np.testing.assert_array_equal(eyes, want)


def test_an_interlaced_source_goes_back_to_the_software_path_and_is_deinterlaced(tmp_path):
    clip = make_video(tmp_path / "i.mp4", seconds=1.0, size=(64, 48), fps=12, audio=False,
                      interlaced=True)
    got = read_all(clip, nvdec=nvdec.DevicePlanes("cpu"))
    assert not any(isinstance(b.eyes, torch.Tensor) for b in got)
    pts, eyes = frames_of(got)
    want_pts, want = frames_of(read_all(clip))
    assert pts == want_pts
    np.testing.assert_array_equal(eyes, want)  # the software reader deinterlaces


class FailingAfter(nvdec.DevicePlanes):
    """Stops NVDEC after ``n`` frames with ``error``: an interlaced frame (a
    broadcast turning 1080i) or FFmpeg's (a device it cannot open, say)."""

    def __init__(self, n: int, error: Exception) -> None:
        super().__init__("cpu")
        self.left, self.error = n, error

    def read_into(self, frame, out, turns: int = 0) -> None:
        if not self.left:
            raise self.error
        self.left -= 1
        super().read_into(frame, out, turns)


@pytest.mark.parametrize("error", [decode._Interlaced(),
                                   av.error.OSError(95, "Operation not supported")])
@pytest.mark.parametrize("after", [0, 7, 10])
def test_a_switch_midway_hands_every_frame_over_once(tmp_path, after, error):
    """Batches handed over on the device stay; the software path goes on after them."""
    clip = make_video(tmp_path / "c.mp4", seconds=1.0, size=(64, 48), fps=12, audio=False)
    got = read_all(clip, nvdec=FailingAfter(after, error))
    assert sum(isinstance(b.eyes, torch.Tensor) for b in got) == after // 5
    pts, eyes = frames_of(got)
    want_pts, want = frames_of(read_all(clip))
    assert pts == want_pts
    np.testing.assert_array_equal(eyes, want)


def test_nvdec_is_chosen_only_where_it_gives_the_software_paths_frames(monkeypatch):
    plain = dict(codec="h264", pix_fmt="yuv420p", eye_format="yuv420p", filtered=False)
    monkeypatch.setattr("av.codec.hwaccel.hwdevices_available", lambda: ["cuda"])
    monkeypatch.setattr(nvdec, "_shared_context", lambda index: True)
    monkeypatch.setattr(nvdec, "_index", lambda device: 0)
    assert nvdec.usable("cuda", **plain)
    assert nvdec.usable("cuda:1", **{**plain, "codec": "hevc", "pix_fmt": "yuvj420p"})
    for change in ({"codec": "prores"}, {"pix_fmt": "yuv420p10le"}, {"pix_fmt": "yuv422p"},
                   {"pix_fmt": None}, {"eye_format": "yuv420p10le"}, {"filtered": True}):
        assert not nvdec.usable("cuda", **{**plain, **change}), change
    assert not nvdec.usable("cpu", **plain)
    monkeypatch.setattr(nvdec, "ENABLED", False)
    assert not nvdec.usable("cuda", **plain)
    monkeypatch.setattr(nvdec, "ENABLED", True)
    monkeypatch.setattr("av.codec.hwaccel.hwdevices_available", lambda: ["vaapi"])
    assert not nvdec.usable("cuda", **plain)  # an FFmpeg built without it
    monkeypatch.setattr("av.codec.hwaccel.hwdevices_available", lambda: ["cuda"])
    monkeypatch.setattr(nvdec, "_shared_context", lambda index: False)
    assert not nvdec.usable("cuda", **plain)  # torch's CUDA context could not be shared


def test_a_machine_without_a_cuda_driver_shares_no_context(caplog):
    """(On a GPU machine this sets the primary context's flags, and says True.)"""
    try:
        import ctypes

        ctypes.CDLL("libcuda.so.1")
        pytest.skip("this machine has a CUDA driver")
    except OSError:
        pass
    nvdec._shared_context.cache_clear()
    assert not nvdec._shared_context(0)
    assert "NVDEC left unused" in caplog.text
