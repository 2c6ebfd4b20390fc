import json

import cv2
import numpy as np
import torch

from stereo_inference.depth.stabilized import FlowStabilized


class Jittery:
    """A per-frame 'model': the frame's own brightness as depth, with a random
    scale, offset and noise every frame (what per-frame models do to a still scene)."""

    name, max_batch, device = "jittery", None, "cpu"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def input_size(self, width, height):
        return width, height

    def estimate(self, rgb):
        out = []
        for frame in rgb.mean(1, keepdim=True):  # draws per frame: batches do not matter
            scale = float(self.rng.uniform(0.8, 1.2))
            noise = torch.from_numpy(self.rng.normal(0, 0.02, frame.shape).astype(np.float32))
            out.append(frame * scale + 0.05 * scale + noise)
        return torch.stack(out)


def _picture(seed: int) -> torch.Tensor:
    noise = np.random.default_rng(seed).random((72, 128)).astype(np.float32)
    grey = cv2.GaussianBlur(noise, (0, 0), 2.0)
    grey = (grey - grey.min()) / np.ptp(grey)
    return torch.from_numpy(np.repeat(grey[None, None], 3, 1))


def _flicker(maps: torch.Tensor) -> float:
    return float((maps[1:] - maps[:-1]).abs().mean())


def test_a_still_scene_holds_still_where_the_model_alone_wobbles():
    frames = _picture(1).repeat(12, 1, 1, 1)
    raw = Jittery().estimate(frames)
    held = FlowStabilized(Jittery()).estimate(frames)
    assert _flicker(held) < 0.2 * _flicker(raw)
    # still the model's depth: brighter is nearer, as the model said
    corr = np.corrcoef(held[-1].flatten().numpy(), frames[0, 0].flatten().numpy())[0, 1]
    assert corr > 0.95


def test_a_cut_takes_the_new_shots_depth_as_the_model_gives_it():
    stable = FlowStabilized(Jittery(seed=3))
    stable.estimate(_picture(1).repeat(4, 1, 1, 1))
    after = stable.estimate(_picture(2))
    alone = Jittery(seed=3)
    alone.estimate(_picture(1).repeat(4, 1, 1, 1))  # same random draws as above
    assert torch.allclose(after, alone.estimate(_picture(2)), atol=1e-6)


def test_its_memory_resumes_in_a_fresh_wrapper_like_an_unbroken_run():
    frames = _picture(1).repeat(8, 1, 1, 1)
    whole = FlowStabilized(Jittery()).estimate(frames)
    first = FlowStabilized(Jittery())
    first.estimate(frames[:4])
    resumed = FlowStabilized(first.inner)  # the model continues its own sequence
    resumed.restore(json.loads(json.dumps(first.state())))
    assert float((resumed.estimate(frames[4:]) - whole[4:]).abs().max()) < 1e-2


def test_numpy_in_numpy_out_and_a_malformed_state_is_ignored():
    class NumpyJittery(Jittery):
        def estimate(self, rgb):
            return super().estimate(torch.from_numpy(rgb)).numpy()

    out = FlowStabilized(NumpyJittery()).estimate(_picture(1).repeat(2, 1, 1, 1).numpy())
    assert isinstance(out, np.ndarray) and out.shape == (2, 1, 72, 128)
    stable = FlowStabilized(Jittery())
    stable.restore({"gray": {"shape": [2, 2], "data": "not base64!"}, "held": None})
    assert stable.state() is None


class Counting(Jittery):
    """Jittery, counting the frames it is asked about."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.seen = 0

    def estimate(self, rgb):
        self.seen += rgb.shape[0]
        return super().estimate(rgb)


def _pan(frames: int, start: int = 0) -> torch.Tensor:
    """A textured picture moving 1 px left per frame (the flow holds everywhere)."""
    wide = _picture(5)[0, 0].numpy()
    wide = np.hstack([wide, wide[:, ::-1]])
    return torch.stack([torch.from_numpy(np.repeat(wide[None, :, i:i + 128], 3, 0))
                        for i in range(start, start + frames)])


def test_a_stride_runs_the_model_on_every_nth_frame_and_moves_its_depth_between():
    frames = _pan(12)
    every = FlowStabilized(Counting())
    strided = FlowStabilized(Counting(), stride=3)
    full, sparse = every.estimate(frames), strided.estimate(frames)
    assert every.inner.seen == 12 and strided.inner.seen == 4
    assert sparse.shape == full.shape
    # between keyframes the depth follows the picture: close to running the model each time
    assert float((sparse - full).abs().mean()) < 0.05
    # and not just the keyframe's map repeated in place
    assert float((sparse[1] - sparse[0]).abs().mean()) > 0.005


def test_a_cut_between_keyframes_runs_the_model_on_the_new_shot():
    strided = FlowStabilized(Counting(seed=3), stride=4)
    strided.estimate(_picture(1).repeat(2, 1, 1, 1))
    assert strided.inner.seen == 1  # the second frame of a still shot follows the first
    strided.estimate(_picture(2))
    assert strided.inner.seen == 2


def test_a_strided_run_resumes_across_segments_like_an_unbroken_one():
    frames = _pan(10)
    whole = FlowStabilized(Counting(), stride=3)
    expected = whole.estimate(frames)
    first = FlowStabilized(Counting(), stride=3)
    first.estimate(frames[:5])
    resumed = FlowStabilized(first.inner, stride=3)
    resumed.restore(json.loads(json.dumps(first.state())))
    assert float((resumed.estimate(frames[5:]) - expected[5:]).abs().max()) < 1e-2
    assert first.inner.seen == whole.inner.seen  # keyframes at the same frames


class Ramp:
    """A steady 'model': the same left-to-right ramp for every frame."""

    name, max_batch, device = "ramp", None, "cpu"

    def input_size(self, width, height):
        return width, height

    def estimate(self, rgb):
        ramp = torch.linspace(0, 1, rgb.shape[-1]).expand(rgb.shape[0], 1, *rgb.shape[-2:])
        return ramp.clone()


def test_in_a_still_shot_nothing_that_does_not_move_is_dragged_along_guessed_flow(still_walls):
    # a still camera on flat walls, small textured squares crossing them: DIS
    # guesses the walls' flow from the squares (~0.3 px a frame), which moved
    # the held map there before it was blended with the model's
    frames, untouched = still_walls(12)
    maps = FlowStabilized(Ramp()).estimate(frames)[:, 0].numpy()
    assert untouched.mean() > 0.3
    ramp = Ramp().estimate(frames[:1])[0, 0].numpy()
    # what is left is the affine fit's answer to the moving squares (a, b of the
    # whole map): at most 0.009 here; dragged along the guessed flow, 0.025
    assert float(np.abs(maps[:, untouched] - ramp[untouched]).max()) < 0.015
