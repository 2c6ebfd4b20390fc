"""planes: the one-copy route between PyAV frames and the engine's (H*3/2, W)
arrays gives exactly what PyAV's own conversions give, and steps aside where
it does not apply."""

import av
import numpy as np
import pytest

from stereo_inference import planes


def frame_of(fmt: str, w: int, h: int, seed: int = 0) -> av.VideoFrame:
    """A frame with different noise in every plane (and in the rows' padding)."""
    rgb = np.random.default_rng(seed).integers(0, 255, (h, w, 3), dtype=np.uint8)
    return av.VideoFrame.from_ndarray(rgb, format="rgb24").reformat(format=fmt)


@pytest.mark.parametrize("fmt", ["yuv420p", "yuv420p10le"])
@pytest.mark.parametrize("size", [(64, 32), (100, 38)])  # 100: rows padded past the width
def test_reading_a_frame_gives_what_to_ndarray_gives(fmt, size):
    frame = frame_of(fmt, *size)
    assert planes.fits(frame, fmt, size)
    batch = planes.batch_array(fmt, size, 2)
    planes.read_into(frame, batch[1])
    np.testing.assert_array_equal(batch[1], frame.to_ndarray(format=fmt))


@pytest.mark.parametrize("fmt", ["yuv420p", "yuv420p10le"])
def test_a_written_frame_reads_back_as_the_array(fmt):
    array = frame_of(fmt, 100, 38, seed=1).to_ndarray(format=fmt)
    frame = planes.to_frame(array, fmt)
    assert (frame.width, frame.height, frame.format.name) == (100, 38, fmt)
    np.testing.assert_array_equal(frame.to_ndarray(format=fmt), array)
    # and it is what PyAV's own conversion makes of the same array
    np.testing.assert_array_equal(
        frame.to_ndarray(format=fmt),
        av.VideoFrame.from_ndarray(array, format=fmt).to_ndarray(format=fmt))


def test_frames_that_need_converting_do_not_fit():
    frame = frame_of("yuv420p", 64, 32)
    assert not planes.fits(frame, "yuv420p", (32, 16))  # another size: scaled by PyAV
    assert not planes.fits(frame, "yuv420p10le", (64, 32))  # another format
    assert not planes.fits(frame, "rgb24", (64, 32))  # not a planar 4:2:0 layout
    assert not planes.fits(frame_of("yuv420p", 66, 34).reformat(width=65, height=33),
                           "yuv420p", (65, 33))  # odd: chroma is not half the luma


def test_arrays_the_views_do_not_cover_go_through_pyav():
    rgb = np.random.default_rng(2).integers(0, 255, (16, 32, 3), dtype=np.uint8)
    frame = planes.to_frame(rgb, "rgb24")
    np.testing.assert_array_equal(frame.to_ndarray(format="rgb24"), rgb)


def test_an_8_bit_array_is_wrapped_not_copied():
    array = frame_of("yuv420p", 64, 32, seed=3).to_ndarray(format="yuv420p")
    frame = planes.to_frame(array, "yuv420p")
    assert (frame.width, frame.height, frame.format.name) == (64, 32, "yuv420p")
    luma = np.frombuffer(frame.planes[0], np.uint8)
    assert np.shares_memory(luma, array)  # the frame's picture is the array's memory
    np.testing.assert_array_equal(frame.to_ndarray(format="yuv420p"), array)
    # every plane where the layout puts it: U after the luma, V after U
    assert [p.line_size for p in frame.planes] == [64, 32, 32]
    np.testing.assert_array_equal(
        frame.to_ndarray(format="yuv420p"),
        av.VideoFrame.from_ndarray(array, format="yuv420p").to_ndarray(format="yuv420p"))


@pytest.mark.parametrize("rows", [38, 34])  # heights PyAV's wrap would misread: copied
def test_other_heights_and_views_are_copied(rows):
    array = frame_of("yuv420p", 64, rows, seed=4).to_ndarray(format="yuv420p")
    frame = planes.to_frame(array, "yuv420p")
    assert frame.height == rows
    assert not np.shares_memory(np.frombuffer(frame.planes[0], np.uint8), array)
    np.testing.assert_array_equal(frame.to_ndarray(format="yuv420p"), array)
    wide = np.zeros((48, 128), np.uint8)
    wide[:, :64] = frame_of("yuv420p", 64, 32, seed=5).to_ndarray(format="yuv420p")
    view = wide[:, :64]  # rows further apart than the width: not one picture
    copied = planes.to_frame(view, "yuv420p")
    assert not np.shares_memory(np.frombuffer(copied.planes[0], np.uint8), wide)
    np.testing.assert_array_equal(copied.to_ndarray(format="yuv420p"), view)
