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
