"""A depth guess from image cues alone (no weights): where, how sharp, what moves.

Lower in the frame is nearer (the ground plane), sharp detail is nearer than
defocused background, and moving things are nearer than the static backdrop.
The cues are blended at low resolution and blurred heavily, so the result is a
smooth, plausible relief that does not shimmer from frame to frame.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

WIDTH = 128
_WEIGHTS = (0.55, 0.3, 0.15)  # vertical position, detail, motion


class HeuristicDepth:
    name = "heuristic"
    max_batch = None

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self._prev: torch.Tensor | None = None  # last gray frame, for the motion cue

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        w = min(WIDTH, width)
        return w, max(8, round(height * w / width))

    def estimate(self, rgb):
        # Today's CPU engine hands numpy frames over (it never imports torch);
        # this class then converts like the old engine did.
        if isinstance(rgb, np.ndarray):
            return self._estimate(torch.from_numpy(rgb)).numpy()
        return self._estimate(rgb)

    @torch.inference_mode()
    def _estimate(self, rgb: torch.Tensor) -> torch.Tensor:
        rgb = rgb.to(self.device, torch.float32)
        b, _, h, w = rgb.shape
        gray = (0.299 * rgb[:, 0:1] + 0.587 * rgb[:, 1:2] + 0.114 * rgb[:, 2:3])
        vertical = torch.linspace(0.0, 1.0, h, device=self.device).view(1, 1, h, 1)
        vertical = vertical.expand(b, 1, h, w)
        prev = torch.cat([(self._prev if self._prev is not None else gray[:1]), gray[:-1]])
        cues = _normalised(_blur(torch.cat([_gradient(gray), (gray - prev).abs()], 1), h))
        detail, motion = cues[:, 0:1], cues[:, 1:2]
        self._prev = gray[-1:].clone()
        wv, wd, wm = _WEIGHTS
        return _blur(wv * vertical + wd * detail + wm * motion, h)


def _gradient(gray: torch.Tensor) -> torch.Tensor:
    gx = F.pad(gray[..., :, 1:] - gray[..., :, :-1], (0, 1, 0, 0))
    gy = F.pad(gray[..., 1:, :] - gray[..., :-1, :], (0, 0, 0, 1))
    return gx.abs() + gy.abs()


def _blur(x: torch.Tensor, h: int) -> torch.Tensor:
    """A wide separable box blur, twice (approximates a Gaussian), via running sums."""
    k = max(3, (h // 8) | 1)
    for _ in range(2):
        x = _box(_box(x, k, 3), k, 2)
    return x


def _box(x: torch.Tensor, k: int, dim: int) -> torch.Tensor:
    r = k // 2
    first, last = x.narrow(dim, 0, 1), x.narrow(dim, x.shape[dim] - 1, 1)
    padded = torch.cat([torch.zeros_like(first), *([first] * r), x, *([last] * r)], dim)
    sums = padded.cumsum(dim)
    n = x.shape[dim]
    return (sums.narrow(dim, k, n) - sums.narrow(dim, 0, n)) / k


def _normalised(x: torch.Tensor) -> torch.Tensor:
    """Scale each frame and channel to 0..1 by its own maximum (already blurred,
    so one bright pixel cannot dominate)."""
    top = x.amax(dim=(2, 3), keepdim=True).clamp(min=1e-4)
    return (x / top).clamp(0, 1)
