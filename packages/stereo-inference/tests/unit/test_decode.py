import numpy as np
import pytest
from stereo_media.testing.media import make_video

from stereo_inference.decode import FrameReader
from stereo_inference.errors import InvalidInputError


def read_all(path, **kw):
    options = dict(eye_size=(32, 24), depth_size=(16, 12), eye_format="rgb24", batch_size=5)
    reader = FrameReader(path, **{**options, **kw})
    try:
        return list(reader)
    finally:
        reader.close()


def test_every_frame_arrives_once_in_batches_at_both_sizes(tmp_path):
    clip = make_video(tmp_path / "c.mp4", seconds=1.0, size=(64, 48), fps=12, audio=False)
    got = read_all(clip)
    assert [len(b.pts) for b in got] == [5, 5, 2]
    assert got[0].eyes.shape == (5, 24, 32, 3)
    assert got[0].depth_rgb.shape == (5, 12, 16, 3)
    pts = [p for b in got for p in b.pts]
    assert pts == sorted(pts)
    assert len(set(pts)) == 12
    assert got[0].time_base is not None


def test_yuv_eyes_come_as_planar_420(tmp_path):
    clip = make_video(tmp_path / "c.mp4", seconds=0.5, size=(64, 48), fps=12, audio=False)
    (first, *_) = read_all(clip, eye_format="yuv420p")
    assert first.eyes.shape[1:] == (24 * 3 // 2, 32)
    assert first.eyes.dtype == np.uint8


def test_an_undecodable_file_raises_invalid_input_from_the_iterator(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 4096)
    with pytest.raises(InvalidInputError):
        read_all(bad)


def test_full_size_planes_land_in_the_allocators_arrays_with_no_depth_input(tmp_path):
    """A GPU conversion's reading: no RGB for the model (made on the device),
    eyes copied straight into the arrays ``allocate`` gives (page-locked memory,
    arrays viewing torch's) and handed over as they are, not copied again."""
    torch = pytest.importorskip("torch")
    clip = make_video(tmp_path / "c.mp4", seconds=1.0, size=(64, 48), fps=12, audio=False)
    given = []

    def allocate(shape, dtype):
        given.append(torch.empty(shape, dtype=torch.uint8).numpy().view(dtype))
        return given[-1]

    got = read_all(clip, eye_size=(64, 48), depth_size=None, eye_format="yuv420p",
                   allocate=allocate)
    assert [len(b.pts) for b in got] == [5, 5, 2]
    assert all(b.depth_rgb is None for b in got)
    assert len(given) == 3
    for batch, array in zip(got, given, strict=True):
        assert batch.eyes.shape[1:] == (72, 64)
        assert np.shares_memory(batch.eyes, array)  # the batch is the allocated array
    # the planes are the decoder's: the same as PyAV's own conversion
    import av

    with av.open(str(clip)) as container:
        first = next(container.decode(video=0)).to_ndarray(format="yuv420p")
    assert np.array_equal(got[0].eyes[0], first)
