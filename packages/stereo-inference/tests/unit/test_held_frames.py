"""A frame that repeats the one before it gets that frame's depth and packed picture."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from shared_types.models import ConversionParams, OutputMode

from stereo_inference.decode import FrameBatch
from stereo_inference.depth import load_estimator
from stereo_inference.held_frames import estimate_held, held
from stereo_inference.synthesis import StereoRenderer
from stereo_inference.temporal import TemporalNormalizer

H, W = 48, 80


def _pictures(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` different pictures: (n, 24, 40, 3) depth inputs and (n, H*3/2, W) eyes."""
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 256, (n, 24, 40, 3), np.uint8),
            rng.integers(0, 256, (n, H * 3 // 2, W), np.uint8))


class _Counting:
    """The heuristic estimator, counting the frames it is asked for."""

    def __init__(self):
        self.inner = load_estimator("heuristic", models_dir=None, device="cpu")
        self.name, self.max_batch, self.frames = self.inner.name, None, 0

    def input_size(self, width, height):
        return self.inner.input_size(width, height)

    def estimate(self, rgb):
        self.frames += rgb.shape[0]
        return self.inner.estimate(rgb)


def _renderer(mode: OutputMode = OutputMode.HALF_SBS) -> StereoRenderer:
    from stereo_inference.formats import eye_size

    return StereoRenderer(mode, ConversionParams(divergence=4.0), _Counting(),
                          TemporalNormalizer("heuristic"), "cpu", eye_size=eye_size(mode, W, H))


def _run(renderer: StereoRenderer, batches: list[list[int]], small, eyes):
    """Depth and packed frames of batches of picture numbers, stage by stage."""
    depths, outs = [], []
    for numbers in batches:
        batch = FrameBatch(depth_rgb=small[numbers], eyes=eyes[numbers],
                           pts=list(range(len(numbers))), durations=[1] * len(numbers))
        depths.append(renderer.estimate(batch))
        outs.append(renderer.render(batch))
    return np.concatenate(depths), np.concatenate(outs)


def test_which_frames_repeat_the_one_before():
    small, _ = _pictures(3)
    frames = small[[0, 0, 1, 2, 2, 2]]
    assert held(frames, None).tolist() == [False, True, False, False, True, True]
    assert held(frames, small[0]).tolist()[0] is True
    assert held(frames, small[1]).tolist()[0] is False


@pytest.mark.parametrize("mode", [OutputMode.HALF_SBS, OutputMode.TB, OutputMode.ANAGLYPH])
def test_repeats_are_held_and_the_rest_is_what_the_distinct_frames_alone_give(mode):
    small, eyes = _pictures(4)
    # pictures 0 0 1 1 1 | 1 2 3 3: a repeat inside a batch and one across batches
    held_run = _renderer(mode)
    depth, out = _run(held_run, [[0, 0, 1, 1, 1], [1, 2, 3, 3]], small, eyes)
    plain = _renderer(mode)
    want_depth, want_out = _run(plain, [[0, 1], [2, 3]], small, eyes)
    expand = [0, 0, 1, 1, 1, 1, 2, 3, 3]
    np.testing.assert_array_equal(depth, want_depth[expand])
    np.testing.assert_array_equal(out, want_out[expand])
    assert held_run.estimator.frames == plain.estimator.frames == 4


def test_a_repeated_depth_input_with_other_eyes_is_rendered_afresh():
    """Equal depth inputs (the small RGB) hold the depth, but a picture that
    differs at full size (a subtitle, a small moving thing) is warped again."""
    small, eyes = _pictures(2)
    changed = eyes[[0, 0]].copy()
    changed[1, 10, 10] ^= 0xFF
    renderer = _renderer()
    batch = FrameBatch(depth_rgb=small[[0, 0]], eyes=changed, pts=[0, 1], durations=[1, 1])
    depth = renderer.estimate(batch)
    out = renderer.render(batch)
    np.testing.assert_array_equal(depth[0], depth[1])
    assert not np.array_equal(out[0], out[1])


@pytest.mark.parametrize("kind", ["numpy", "tensor"])
def test_held_depths_expand_in_their_kind(kind):
    calls = []

    def estimate(frames):
        calls.append(len(frames))
        values = np.asarray(frames, np.float32)[:, None, :1, :1, 0].copy()
        return torch.from_numpy(values) if kind == "tensor" else values

    small = np.arange(5, dtype=np.float32)[:, None, None, None] * np.ones((5, 2, 2, 3))
    small[[1, 3]] = small[[0, 2]]
    mask = np.array([True, True, False, True, False])  # the first repeats the batch before
    last = np.full((1, 1, 1), -1, np.float32)
    depth = estimate_held(estimate, small, mask, torch.from_numpy(last) if kind == "tensor"
                          else last)
    assert calls == [2]
    assert np.asarray(depth).ravel().tolist() == [-1, -1, 2, 2, 4]
