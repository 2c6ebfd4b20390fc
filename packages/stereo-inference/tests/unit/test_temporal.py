import json

import numpy as np
import torch

from stereo_inference.temporal import TemporalNormalizer


def frames(n, value=0.5, h=18, w=32):
    return torch.full((n, 3, h, w), value)


def ramp_depth(n, scale=1.0):
    return torch.linspace(0, 1, 32).view(1, 1, 1, 32).expand(n, 1, 18, 32) * scale


def test_output_is_within_zero_and_one():
    out = TemporalNormalizer("heuristic").normalize(ramp_depth(3, 7.0), frames(3))
    assert float(out.min()) >= 0
    assert float(out.max()) <= 1
    assert float(out.max()) > 0.9


def test_a_sudden_range_change_is_eased_not_jumped_within_a_shot():
    norm = TemporalNormalizer("heuristic")
    norm.normalize(ramp_depth(1, 1.0), frames(1))
    out = norm.normalize(ramp_depth(1, 0.5), frames(1))  # same shot, depth halves
    fresh = TemporalNormalizer("heuristic").normalize(ramp_depth(1, 0.5), frames(1))
    assert float(out.max()) < float(fresh.max()) - 0.1  # range kept, so no pumping


def test_a_scene_cut_resets_the_range():
    norm = TemporalNormalizer("heuristic")
    norm.normalize(ramp_depth(1, 1.0), frames(1, 0.1))
    out = norm.normalize(ramp_depth(1, 0.5), frames(1, 0.9))  # a different picture
    assert float(out.max()) > 0.95
    assert norm.cuts == 1


def test_state_round_trips_through_json_and_continues_the_range():
    first = TemporalNormalizer("heuristic")
    first.normalize(ramp_depth(2, 1.0), frames(2))
    state = json.loads(json.dumps(first.state()))
    second = TemporalNormalizer("heuristic", state)
    out = second.normalize(ramp_depth(1, 0.5), frames(1))
    assert float(out.max()) < 0.9  # continued the previous segment's range
    other_model = TemporalNormalizer("depth-anything-v2-small", state)
    assert float(other_model.normalize(ramp_depth(1, 0.5), frames(1)).max()) > 0.95


def test_numpy_maps_normalise_like_tensors():
    depth = torch.rand(4, 1, 18, 32, generator=torch.Generator().manual_seed(1)) * 5
    rgb = torch.rand(4, 3, 36, 64, generator=torch.Generator().manual_seed(2))
    rgb[2:] = 0.9  # a cut between frames 1 and 2
    tensor = TemporalNormalizer("heuristic").normalize(depth, rgb)
    array = TemporalNormalizer("heuristic")
    out = array.normalize(depth.numpy(), rgb.numpy())
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, tensor.numpy(), atol=1e-5)
    assert array.cuts == 1


def test_a_near_object_entering_does_not_push_the_rest_back_at_once():
    norm = TemporalNormalizer("heuristic")
    scene = ramp_depth(1)
    for _ in range(5):
        before = norm.normalize(scene, frames(1))
    entered = scene.clone()
    entered[..., 10:18, 0:6] = 3.0  # much nearer than anything so far, 8 % of the frame
    after = norm.normalize(entered, frames(1))
    fresh = TemporalNormalizer("heuristic").normalize(entered, frames(1))
    rest = (slice(None), slice(None), slice(0, 10))
    moved = float((after[rest] - before[rest]).abs().max())
    assert moved < 0.5 * float((fresh[rest] - before[rest]).abs().max())
    unsmoothed = TemporalNormalizer("heuristic", smoothing=0.0)
    for _ in range(5):
        unsmoothed.normalize(scene, frames(1))
    # the newcomer saturates: as near as the nearest so far
    assert float(unsmoothed.normalize(entered, frames(1))[..., 10:18, 0:6].min()) == 1.0


def test_a_cut_between_alike_pictures_is_found_from_the_shots_pace():
    rng = torch.Generator().manual_seed(0)
    picture = torch.rand(1, 3, 18, 32, generator=rng)
    norm = TemporalNormalizer("heuristic")
    for i in range(6):  # a shot that changes a little every frame
        norm.normalize(ramp_depth(1), (picture + 0.005 * i).clamp(0, 1))
    other = torch.rand(1, 3, 18, 32, generator=rng)  # same brightness on average
    out = norm.normalize(ramp_depth(1, 0.5), other)
    assert norm.cuts == 1
    assert float(out.max()) > 0.95  # range reset, not eased


def test_a_resumed_segment_continues_exactly_like_an_unbroken_run():
    depth = torch.rand(6, 1, 18, 32, generator=torch.Generator().manual_seed(1))
    whole = TemporalNormalizer("heuristic").normalize(depth, frames(6))
    first = TemporalNormalizer("heuristic")
    first.normalize(depth[:3], frames(3))
    resumed = TemporalNormalizer("heuristic", json.loads(json.dumps(first.state())))
    rest = resumed.normalize(depth[3:], frames(3))
    assert float((rest - whole[3:]).abs().max()) < 2e-3  # float16 in the state
    assert resumed.cuts == 0
