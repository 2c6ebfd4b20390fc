"""Frames that repeat the one before them: their depth and their packed picture are held.

A still shot, a slide, credits or the pauses of a screen recording decode to
the same pixels frame after frame (a picture coded as a copy of the one
before). Such a frame needs no depth of its own: the estimator would see the
same input (the small RGB the decoder made for it), so the depth stage
estimates only the frames that differ (``held``, ``estimate_held``), and the
estimator and the temporal normaliser move on only with them. The CPU render
then copies the packed frame before when the eyes are the same too
(``repeated_pictures``) instead of warping them again. Exact equality only: a
frame that differs anywhere, however little, is a frame of its own -- so a
lossily coded repeat of a drawing (animation on twos), which usually differs
in the few macroblocks its encoder refined, is not held.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from stereo_inference.arrays import concat


def held(small: np.ndarray, previous: np.ndarray | None) -> np.ndarray:
    """(B,) bool: which frames of ``small`` (B,h,w,3) equal the frame before them;
    the first is compared with ``previous`` (the frame before the batch, or None)."""
    flat = small.reshape(small.shape[0], -1)
    out = np.zeros(small.shape[0], bool)
    if previous is not None and previous.shape == small.shape[1:]:
        out[0] = np.array_equal(flat[0], previous.reshape(-1))
    out[1:] = (flat[1:] == flat[:-1]).all(axis=1)
    return out


def estimate_held(estimate: Callable, small: np.ndarray, held_mask: np.ndarray, last):
    """Depth (B,1,h,w) of the frames ``small``: ``estimate`` of the frames not held,
    in order, and each held frame given the depth of the frame before it (the
    first frame's is ``last``, (1,h,w): the depth of the frame before the batch)."""
    keep = np.flatnonzero(~held_mask)
    if keep.size == held_mask.size:
        return estimate(small)
    parts = [last[None]] if held_mask[0] else []
    if keep.size:
        parts.append(estimate(small[keep]))
    # each frame's place among those depths: the frames not held up to it
    index = np.cumsum(~held_mask) - (0 if held_mask[0] else 1)
    return concat(parts)[index]  # (a numpy index serves a tensor too)


def repeated_pictures(eyes: np.ndarray, held_mask: np.ndarray | None) -> list[bool]:
    """Per frame of ``eyes`` (B,...): whether its packed picture is the one
    before it: its depth was held and its eyes are the same (the first frame of
    a batch is always rendered: batches may render in any order)."""
    if held_mask is None or not held_mask[1:].any():
        return [False] * eyes.shape[0]
    return [False] + [bool(held_mask[i]) and np.array_equal(eyes[i], eyes[i - 1])
                      for i in range(1, eyes.shape[0])]
