"""The few array operations that differ between numpy and torch.

The engine's per-frame algorithms (warp plan, disparity, temporal
normalisation) are written once against arrays that may be numpy (the CPU
path, which never imports torch: its import alone costs a short clip more
than its conversion's render) or torch tensors (GPUs, learned depth models).
Everything numpy and torch spell alike is used directly; the rest is here.
Nothing in this module imports torch: a tensor exists only if torch is loaded.
"""

from __future__ import annotations

import sys

import numpy as np


def is_tensor(x) -> bool:
    """Whether ``x`` is a torch tensor (False whenever torch is not imported)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def namespace(x):
    """``torch`` for a tensor, else ``numpy``: for functions both spell alike
    (``where``, ``ceil``, ``round``, ``isinf``, ``zeros_like``, ``full_like``)."""
    return sys.modules["torch"] if is_tensor(x) else np


def device_type(device) -> str:
    """"cpu" or "cuda" of a device given as a string or a torch.device."""
    return getattr(device, "type", None) or str(device).split(":")[0]


def concat(parts, axis: int = 0):
    """``parts`` joined along ``axis`` (all numpy or all tensors)."""
    if is_tensor(parts[0]):
        return sys.modules["torch"].cat(list(parts), dim=axis)
    return np.concatenate(parts, axis=axis)


def flip_x(x):
    """``x`` mirrored along its last axis (a view for numpy)."""
    return x.flip(-1) if is_tensor(x) else x[..., ::-1]


def as_float(x):
    """``x`` as float32 (no copy when it already is)."""
    if is_tensor(x):
        return x.float()
    return x.astype(np.float32, copy=False)


def cast(x, like):
    """``x`` in the dtype of ``like``."""
    return x.to(like.dtype) if is_tensor(x) else x.astype(like.dtype, copy=False)


SLEEPING_WAITS = True  # off: the host waits for a GPU as CUDA does by default


def settle(x):
    """``x``, once the work queued before now on its CUDA stream is done, waited
    for asleep (a blocking event): a plain copy to the host spins a core for as
    long as the GPU is busy, a core the encoder's threads would use. Anything
    else is returned at once."""
    if SLEEPING_WAITS and is_tensor(x) and x.is_cuda:
        torch = sys.modules["torch"]
        done = torch.cuda.Event(blocking=True)
        done.record(torch.cuda.current_stream(x.device))
        done.synchronize()
    return x


def to_numpy(x) -> np.ndarray:
    """``x`` as a numpy array (a tensor is copied to host memory, see ``settle``)."""
    return settle(x).detach().cpu().numpy() if is_tensor(x) else np.asarray(x)


def arange(n: int, like, *, integer: bool = False):
    """0..n-1 on ``like``'s device, in ``like``'s float dtype (or int64)."""
    if is_tensor(like):
        torch = sys.modules["torch"]
        return torch.arange(n, device=like.device,
                            dtype=torch.int64 if integer else like.dtype)
    return np.arange(n, dtype=np.int64 if integer else like.dtype)


def full(shape: tuple[int, ...], value: float, like):
    """An array of ``shape`` filled with ``value``, on ``like``'s device and dtype."""
    if is_tensor(like):
        return sys.modules["torch"].full(shape, value, device=like.device, dtype=like.dtype)
    return np.full(shape, value, dtype=like.dtype)


def to_index(x):
    """``x`` (integral floats below 2**31) as int64 indices."""
    if is_tensor(x):
        return x.long()
    return x.astype(np.int32).astype(np.int64)  # ~1.5x faster than float32 -> int64


def scatter_max(flat, index, values) -> None:
    """``flat[index] = max(flat[index], values)`` in place, repeated indices included."""
    if is_tensor(flat):
        flat.scatter_reduce_(0, index, values, reduce="amax")
    else:
        np.maximum.at(flat, index, values)


def row_quantiles(rows, qs: tuple[float, ...]) -> list[list[float]]:
    """Per quantile in ``qs``, that quantile (linear interpolation) of each row
    of (B, N) ``rows``; one host transfer for them all."""
    if is_tensor(rows):
        torch = sys.modules["torch"]
        return settle(torch.quantile(rows, torch.tensor(qs, device=rows.device), dim=1)).tolist()
    return np.quantile(rows, qs, axis=1).tolist()


def resize_bilinear(x, size: tuple[int, int]):
    """(B, C, h, w) float maps resized to ``size`` (H, W), bilinear with pixel
    centres aligned like ``F.interpolate(align_corners=False)`` (and OpenCV)."""
    if is_tensor(x):
        from torch.nn import functional

        return functional.interpolate(x, size=size, mode="bilinear", align_corners=False)
    import cv2

    b, c = x.shape[:2]
    h, w = size
    out = np.empty((b, c, h, w), np.float32)
    for i in range(b):
        for j in range(c):
            out[i, j] = cv2.resize(x[i, j], (w, h), interpolation=cv2.INTER_LINEAR)
    return out


def rgb_frames(frames: np.ndarray, device=None):
    """Decoded frames (B,h,w,3) uint8 as (B,3,h,w) float32 in 0..1: numpy when
    ``device`` is None (no torch needed), else a tensor on ``device``."""
    if device is None:  # scaled in place: the same values, one array a batch, not two
        rgb = np.array(frames.transpose(0, 3, 1, 2), dtype=np.float32, order="C")  # a copy
        rgb /= 255
        return rgb
    import torch

    return torch.from_numpy(frames).to(device).permute(0, 3, 1, 2).float().div_(255)
