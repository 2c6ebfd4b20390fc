"""The temporal layer Video-Depth-Anything inserts into Depth-Anything-V2's DPT
head, written here from its description (DepthAnything/Video-Depth-Anything,
its "motion module"), for streaming: frames arrive in order, a batch at a time.

Per pixel of a feature map, each frame attends over time to the frames before
it (at most ``max_len`` in all, itself included):

- the map group-normalised per frame, projected (``proj_in``);
- ``blocks`` times: layer norm, then multi-head self-attention along time, the
  frames' positions given by a sinusoidal encoding added to the keys' and
  queries' input, query/key/value projections without bias; added back;
- a GEGLU feed-forward (4x wide) after a layer norm, added back;
- projected back (``proj_out``; the original zero-initialises it to train, so
  an untrained layer passes its input through: here a random one is left
  random, so tests see the layer act) and added to the input.

What each attention block saw of the previous frames (their normalised input,
before the positional encoding) is kept as the layer's ``cache``: a frame
attends to those and to the earlier frames of its own batch (a causal mask),
as the streaming variant of the original does.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn


def sinusoid(length: int, dim: int, device, dtype) -> torch.Tensor:
    """(length, dim) sinusoidal position encoding: sin on even, cos on odd channels."""
    position = torch.arange(length, device=device, dtype=torch.float32)[:, None]
    rate = torch.exp(torch.arange(0, dim, 2, device=device, dtype=torch.float32)
                     * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim, device=device)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)
    return table.to(dtype)


class TemporalAttention(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_k = nn.Linear(dim, dim, bias=False)
        self.to_v = nn.Linear(dim, dim, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, sequence: torch.Tensor, new: int) -> torch.Tensor:
        """``sequence`` (pixels, frames, dim), position-encoded; the last ``new``
        frames query it causally. Returns (pixels, new, dim)."""
        pixels, length, dim = sequence.shape
        split = lambda x: x.reshape(pixels, x.shape[1], self.heads, -1).transpose(1, 2)  # noqa: E731
        q = split(self.to_q(sequence[:, length - new:]))
        k, v = split(self.to_k(sequence)), split(self.to_v(sequence))
        # query j (at length - new + j) sees every frame up to itself
        mask = torch.ones(new, length, dtype=torch.bool, device=sequence.device).tril(
            length - new)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.to_out(out.transpose(1, 2).reshape(pixels, new, dim))


class GegluFeedForward(nn.Module):
    def __init__(self, dim: int, mult: int = 4) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim * mult * 2)
        self.out = nn.Linear(dim * mult, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        value, gate = self.proj(x).chunk(2, dim=-1)
        return self.out(value * F.gelu(gate))


class TemporalModule(nn.Module):
    def __init__(self, channels: int, *, heads: int = 8, blocks: int = 2,
                 max_len: int = 32, groups: int = 32) -> None:
        super().__init__()
        self.max_len = max_len
        self.norm = nn.GroupNorm(math.gcd(groups, channels), channels, eps=1e-6)
        self.proj_in = nn.Linear(channels, channels)
        self.attention = nn.ModuleList(TemporalAttention(channels, heads) for _ in range(blocks))
        self.norms = nn.ModuleList(nn.LayerNorm(channels) for _ in range(blocks))
        self.ff_norm = nn.LayerNorm(channels)
        self.ff = GegluFeedForward(channels)
        self.proj_out = nn.Linear(channels, channels)

    def forward(self, x: torch.Tensor, cache: list[torch.Tensor] | None
                ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """``x`` (frames, C, H, W), in order, after the frames ``cache`` holds (None:
        the first). Returns the output and the cache for the frames after these."""
        frames, channels, height, width = x.shape
        h = self.norm(x).permute(0, 2, 3, 1).reshape(frames, height * width, channels)
        h = self.proj_in(h)
        kept = []
        for i, (attention, norm) in enumerate(zip(self.attention, self.norms, strict=True)):
            seen = norm(h).transpose(0, 1)  # (pixels, frames, C)
            if cache is not None:  # at most max_len frames in all, these included
                seen = torch.cat([cache[i][:, max(0, cache[i].shape[1] - self.max_len + frames):],
                                  seen], dim=1)
            kept.append(seen[:, -(self.max_len - 1):])
            sequence = seen + sinusoid(seen.shape[1], channels, seen.device, seen.dtype)
            h = h + attention(sequence, frames).transpose(0, 1)
        h = h + self.ff(self.ff_norm(h))
        out = self.proj_out(h).reshape(frames, height, width, channels).permute(0, 3, 1, 2)
        return x + out, kept
