"""FlowStabilized on tensors (the GPU path, here on CPU tensors) against the
numpy path that CPU conversions use: the same results, within float rounding."""

import json

import cv2
import numpy as np
import pytest
import torch

from stereo_inference.depth.stabilized import FlowStabilized, _small_gray, _small_grays

# Measured (CPU, torch 2.13): max 5.6e-6, mean 2.6e-7 of the depth range. A
# flow resized with align_corners=True gives max 1.2e-2 / mean 6.9e-5, a warp
# half a pixel off max 1.5e-1 / mean 1.6e-2: these bounds catch both.
MAX_REL, MEAN_REL = 1e-3, 1e-5


class Shading:
    """A deterministic per-frame 'model': the frame's mean colour as depth, with
    a scale and offset that change with every call (in the input's kind)."""

    name, max_batch, device = "shading", None, "cpu"

    def __init__(self) -> None:
        self.calls = 0

    def input_size(self, width, height):
        return width, height

    def estimate(self, rgb):
        self.calls += 1
        scale, offset = 1.0 + 0.1 * (self.calls % 3), 0.05 * self.calls
        if isinstance(rgb, np.ndarray):
            return rgb.mean(1, keepdims=True) * scale + offset
        return rgb.mean(1, keepdim=True) * scale + offset


def _frames(n: int = 10, h: int = 72, w: int = 160, cut: int = 6) -> np.ndarray:
    """A textured picture moving 2 px right and 1 px down every other frame, with
    a square moving over it, and a cut to another picture at frame ``cut``; 160
    wide, so the grey frames shrink by a non-integer ratio and the flow grows."""
    rng = np.random.default_rng(0)
    shots = [cv2.GaussianBlur(rng.random((h + 20, w + 40)).astype(np.float32), (0, 0), 1.5)
             for _ in range(2)]
    out = []
    for i in range(n):
        picture = shots[i >= cut][5 + i // 2:5 + i // 2 + h, 10 + 2 * i:10 + 2 * i + w].copy()
        picture = (picture - picture.min()) / np.ptp(picture)
        y, x = 20 + i, 30 + 3 * i
        picture[y:y + 16, x:x + 16] = 0.9 - 0.3 * picture[y:y + 16, x:x + 16]
        out.append(np.stack([picture, picture * 0.8 + 0.1, 1 - picture]))
    return np.stack(out).astype(np.float32)


def _run(frames, stride: int = 1, split: int = 4):
    stable = FlowStabilized(Shading(), stride=stride)
    return stable, [stable.estimate(frames[:split]), stable.estimate(frames[split:])]


def _assert_close(tensor_maps, numpy_maps):
    expected = np.concatenate(numpy_maps)
    got = torch.cat(tensor_maps).numpy()
    diff = np.abs(got - expected) / np.ptp(expected)
    assert diff.max() < MAX_REL and diff.mean() < MEAN_REL, (diff.max(), diff.mean())


def test_the_grey_frames_for_the_flow_match_opencvs_on_the_device():
    for h, w in [(72, 160), (518, 924), (64, 112)]:
        frames = _frames(3, h, w)
        expected = np.stack([_small_gray(f) for f in frames])
        got = np.stack(_small_grays(torch.from_numpy(frames)))
        assert got.shape == expected.shape and got.dtype == np.uint8
        assert np.abs(got.astype(int) - expected).max() <= 1
        assert np.mean(got != expected) < 1e-3


@pytest.mark.parametrize("stride", [1, 3])
def test_tensor_input_gives_the_numpy_paths_depth_on_the_inputs_device(stride):
    frames = _frames()
    _, numpy_maps = _run(frames, stride)
    stable, tensor_maps = _run(torch.from_numpy(frames), stride)
    for maps in tensor_maps:
        assert isinstance(maps, torch.Tensor) and maps.device.type == "cpu"
        assert maps.dtype == torch.float32 and maps.shape[1:] == (1, 72, 160)
    assert isinstance(stable._held, torch.Tensor)  # the held map stayed a tensor
    _assert_close(tensor_maps, numpy_maps)


def _resumed(frames, stride: int, first, then):
    """The second half of ``frames`` from a fresh wrapper given the first
    half's state() as JSON (a new segment), inputs in the kinds given."""
    before = FlowStabilized(Shading(), stride=stride)
    before.estimate(first(frames[:4]))
    resumed = FlowStabilized(before.inner, stride=stride)  # the model goes on counting
    resumed.restore(json.loads(json.dumps(before.state())))
    return resumed.estimate(then(frames[4:])), resumed.inner.calls


@pytest.mark.parametrize("stride", [1, 3])
@pytest.mark.parametrize("first_kind,then_kind", [("numpy", "tensor"), ("tensor", "numpy")])
def test_its_memory_crosses_between_numpy_and_tensors(stride, first_kind, then_kind):
    frames = _frames()
    kinds = {"numpy": np.asarray, "tensor": torch.from_numpy}
    first, then = kinds[first_kind], kinds[then_kind]
    stable, whole = _run(frames, stride)
    # in the same wrapper: the held map changes kind with the input
    mixed = FlowStabilized(Shading(), stride=stride)
    mixed.estimate(first(frames[:4]))
    same = mixed.estimate(then(frames[4:]))
    assert isinstance(same, torch.Tensor if then_kind == "tensor" else np.ndarray)
    expected = np.concatenate(whole)[4:]
    diff = np.abs(np.asarray(same) - expected) / np.ptp(expected)
    assert diff.max() < MAX_REL and diff.mean() < MEAN_REL, (diff.max(), diff.mean())
    assert mixed.inner.calls == stable.inner.calls
    # through state() (numpy inside) into a fresh wrapper, like the numpy path's own
    # resume (which differs a little from an unbroken run: a fresh DIS, a float16 map)
    restored, calls = _resumed(frames, stride, first, then)
    reference, reference_calls = _resumed(frames, stride, np.asarray, np.asarray)
    assert isinstance(restored, torch.Tensor if then_kind == "tensor" else np.ndarray)
    diff = np.abs(np.asarray(restored) - reference) / np.ptp(reference)
    # a map a rounding apart may round to neighbouring float16s in the state: one
    # float16 step near 1 is 1e-3 (measured max 1.2e-3 of the range, mean 1e-7)
    assert diff.max() < 4e-3 and diff.mean() < MEAN_REL, (diff.max(), diff.mean())
    assert calls == reference_calls  # keyframes at the same frames


def test_a_batch_of_moving_keyframes_takes_one_call_with_the_per_frame_result(monkeypatch):
    """Stride 1 without a cut: the whole batch's recurrence in one (graphable)
    call, equal to the frame-by-frame steps."""
    from stereo_inference.depth import stabilized

    frames = torch.from_numpy(_frames(cut=99))
    calls = []
    graphed = stabilized._KEYFRAMES
    monkeypatch.setattr(stabilized, "_KEYFRAMES", lambda *a: calls.append(a) or graphed(*a))
    _, batched = _run(frames)
    assert len(calls) == 1  # the second batch (the first has no frame before it)
    monkeypatch.setattr(FlowStabilized, "_all_held", lambda *a: False)
    _, stepped = _run(frames)
    assert len(calls) == 1
    assert torch.equal(torch.cat(batched), torch.cat(stepped))
