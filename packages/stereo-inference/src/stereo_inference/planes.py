"""YUV 4:2:0 planes between PyAV frames and the engine's (H*3/2, W) arrays: one copy or none.

The engine keeps a frame as one array: the luma plane, then U, then V, each
chroma plane's rows laid two to an array row (yuv420p's layout, as PyAV's
``to_ndarray`` returns it). PyAV's own conversions cost ~1.2-1.4 ms per 720p
frame each way (a scaler pass and a temporary), plus the stack into a batch;
these read the frames' plane buffers through numpy views instead: one
strided copy per plane, straight into the batch array; the encoder's frame
wraps the rendered array itself where PyAV can (``to_frame``). Only
even-sized 8-bit and 10-bit (little-endian) 4:2:0 frames take this path;
anything else goes through PyAV as before.
"""

from __future__ import annotations

import av
import numpy as np

FORMATS = {"yuv420p": np.uint8, "yuv420p10le": np.uint16}
# the formats whose (H*3/2, W) arrays PyAV can wrap as a frame without a copy
WRAPPED = frozenset({"yuv420p"})


def fits(frame: av.VideoFrame, fmt: str, size: tuple[int, int]) -> bool:
    """True when ``frame`` is already ``fmt`` at ``size`` (w, h), even-sized:
    its planes can be copied as they are."""
    w, h = size
    return (fmt in FORMATS and frame.format.name == fmt and (frame.width, frame.height) == (w, h)
            and w % 2 == 0 and h % 2 == 0)


def batch_array(fmt: str, size: tuple[int, int], frames: int, allocate=np.empty) -> np.ndarray:
    """An empty (frames, H*3/2, W) array for ``read_into``, of ``fmt``'s sample
    type, from ``allocate(shape, dtype)``."""
    w, h = size
    return allocate((frames, h * 3 // 2, w), FORMATS[fmt])


def read_into(frame: av.VideoFrame, out: np.ndarray) -> None:
    """Copy ``frame``'s planes into ``out`` (H*3/2, W), which ``fits`` allowed."""
    h, w = frame.height, frame.width
    out[:h] = _view(frame.planes[0], h, w, out.dtype)
    chroma = out[h:].reshape(2, h // 2, w // 2)
    chroma[0] = _view(frame.planes[1], h // 2, w // 2, out.dtype)
    chroma[1] = _view(frame.planes[2], h // 2, w // 2, out.dtype)


def to_frame(array: np.ndarray, fmt: str) -> av.VideoFrame:
    """A frame of ``fmt`` holding ``array`` (H*3/2, W); PyAV's own
    conversion for formats or shapes these views do not cover.

    A contiguous 8-bit array whose height is a multiple of 4 is not copied:
    the frame's planes are the array's own memory (``from_numpy_buffer``; the
    frame keeps the array alive, an encoder copies the picture in when it
    takes it), so leave the array unchanged while the frame is in use. Other
    even sizes get one copy per plane into a new frame.
    """
    total, w = array.shape[:2]
    h = total * 2 // 3
    if (fmt not in FORMATS or array.ndim != 2 or array.dtype != FORMATS[fmt]
            or h * 3 // 2 != total or w % 2 or h % 2):
        return av.VideoFrame.from_ndarray(array, format=fmt)
    if fmt in WRAPPED and h % 4 == 0 and array.flags.c_contiguous:
        # (PyAV reads the height as rows // 6 * 4: exact when h is a multiple of 4)
        return av.VideoFrame.from_numpy_buffer(array, format=fmt)
    frame = av.VideoFrame(w, h, fmt)
    _view(frame.planes[0], h, w, array.dtype)[:] = array[:h]
    chroma = array[h:].reshape(2, h // 2, w // 2)
    _view(frame.planes[1], h // 2, w // 2, array.dtype)[:] = chroma[0]
    _view(frame.planes[2], h // 2, w // 2, array.dtype)[:] = chroma[1]
    return frame


def _view(plane, h: int, w: int, dtype) -> np.ndarray:
    """The (h, w) picture of ``plane`` (its rows are ``line_size`` bytes apart)."""
    itemsize = np.dtype(dtype).itemsize
    return np.frombuffer(plane, dtype).reshape(-1, plane.line_size // itemsize)[:h, :w]
