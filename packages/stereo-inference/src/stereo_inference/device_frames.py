"""Decoded frames on a GPU: uploaded once, the model's RGB and the eye size made there.

On a GPU the decoder only copies each frame's YUV 4:2:0 planes into its batch
(into page-locked memory, so the upload is a DMA the copy engine runs while
the GPU computes): no CPU scaler pass at all. Two such passes per frame (RGB
at the model's size, the eye at half width) held the decoding thread to ~110
frames/s at 1080p on a 16-core machine, half a plain x264 transcode's pace.
The depth stage uploads the batch and derives both things from those planes:

- ``depth_input``: RGB at the depth model's size, with the source's YUV matrix
  and range (area-averaged, or bicubic where it grows);
- ``eye_planes``: the planes area-averaged to the eye size (the half
  layouts' 2:1 squeeze), as the CPU path's ``remap.warp_packed`` does.

Frames are (B, H*3/2, W) arrays as everywhere in the engine (``planes``):
uint8, or 10-bit values in int16.
"""

from __future__ import annotations

import numpy as np

from stereo_inference.yuv_matrices import FULL_RANGE, KR_KB


def pinned_empty(shape: tuple[int, ...], dtype) -> np.ndarray:
    """An uninitialised array in page-locked memory (torch's pinned allocator
    caches the blocks, so a batch's buffer costs no new allocation)."""
    import torch

    kind = {np.dtype(np.uint8): torch.uint8, np.dtype(np.uint16): torch.int16}[np.dtype(dtype)]
    return torch.empty(shape, dtype=kind, pin_memory=True).numpy().view(dtype)


def upload(frames, device):
    """``frames`` (B, H*3/2, W) on ``device``; 10-bit samples as int16 (they fit).
    A tensor (NVDEC's batch: ``nvdec``) is moved only if it is elsewhere."""
    import torch

    if isinstance(frames, torch.Tensor):
        return frames.to(device, non_blocking=True)
    if frames.dtype == np.uint16:
        frames = frames.view(np.int16)
    return torch.from_numpy(frames).to(device, non_blocking=True)


def split_planes(yuv):
    """(luma (B,1,H,W), chroma (B,2,H/2,W/2)) views of frames (B, H*3/2, W)."""
    b, rows, w = yuv.shape
    h = rows * 2 // 3
    return yuv[:, :h].unsqueeze(1), yuv[:, h:].reshape(b, 2, h // 2, w // 2)


def eye_planes(yuv, size: tuple[int, int] | None = None):
    """(luma (B,1,h,w), chroma (B,2,h/2,w/2)) of frames ``yuv`` area-averaged to
    ``size`` (w, h), as float; views of ``yuv`` as it is (not even converted)
    when ``size`` is None or its own."""
    from torch.nn import functional as F  # noqa: N812

    luma, chroma = split_planes(yuv)
    if size is None or tuple(luma.shape[2:]) == (size[1], size[0]):
        return luma, chroma
    w, h = size
    return (F.interpolate(luma.float(), size=(h, w), mode="area"),
            F.interpolate(chroma.float(), size=(h // 2, w // 2), mode="area"))


def depth_input(yuv, size: tuple[int, int], color: tuple | None, bit_depth: int = 8):
    """RGB (B,3,h,w) float in 0..1 at ``size`` (w, h) from frames ``yuv``.

    ``color`` is (primaries, transfer, matrix, range) as FFmpeg numbers (None or
    an unknown matrix: BT.709 from 720 lines up, else BT.601; limited range
    unless it says full).
    """
    import torch

    w, h = size
    luma, chroma = split_planes(yuv)
    scale = 1.0 / (1 << (bit_depth - 8))  # 10-bit samples to the 8-bit scale
    y = _resized(luma.float(), (h, w)) * scale
    uv = _resized(chroma.float(), (h, w)) * scale - 128
    height = luma.shape[2]
    fallback = KR_KB[1] if height >= 720 else KR_KB[5]
    kr, kb = KR_KB.get(color[2], fallback) if color else fallback
    if color and color[3] == FULL_RANGE:
        y, uv = y / 255, uv / 255
    else:
        y, uv = (y - 16) / 219, uv / 224
    cb, cr = uv[:, :1], uv[:, 1:]
    r = y + 2 * (1 - kr) * cr
    b = y + 2 * (1 - kb) * cb
    g = (y - kr * r - kb * b) / (1 - kr - kb)
    return torch.cat([r, g, b], dim=1).clamp_(0, 1)


def _resized(plane, size: tuple[int, int]):
    """``plane`` (B,C,h,w) at ``size`` (h, w): area-averaged when it shrinks; when it
    grows (a source smaller than a learned model's input, which Depth-Anything's
    reference upscales), bicubic as the reference resizes -- area would repeat pixels."""
    from torch.nn import functional as F  # noqa: N812

    if size[0] <= plane.shape[2] and size[1] <= plane.shape[3]:
        return F.interpolate(plane, size=size, mode="area")
    return F.interpolate(plane, size=size, mode="bicubic", align_corners=False)


def join_planes(luma, chroma):
    """Planes (B,1,H,W) and (B,2,H/2,W/2) as frames (B, H*3/2, W)."""
    import torch

    b, _, h, w = luma.shape
    return torch.cat([luma.reshape(b, h, w), chroma.reshape(b, h // 2, w)], dim=1)
