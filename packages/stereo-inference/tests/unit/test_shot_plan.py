import json

import numpy as np
from shared_types.models import ConversionParams

from stereo_inference.shaping import shaping_for
from stereo_inference.shot_plan import ShotPlanner

PARAMS = ConversionParams(auto_convergence=True, floating_window=True, viewing="tv-65",
                          comfort="fix", divergence=8.0)


def _depths(n=20):
    rng = np.random.default_rng(3)
    base = rng.random((1, 1, 18, 32)).astype(np.float32)
    return [np.clip(base + 0.02 * i + 0.3 * (np.arange(32) / 32), 0, 1) for i in range(n)]


def _plan(planner, depths, start):
    plans = [planner.plan(d, [(start + i) / 24]) for i, d in enumerate(depths)]
    return np.array([p.convergence[0] for p in plans]), np.array([p.strength[0] for p in plans])


def test_a_planner_resumed_from_the_state_goes_on_like_one_conversion():
    depths = _depths()
    shaping = shaping_for(PARAMS, 320)
    whole = _plan(ShotPlanner(PARAMS, shaping, 1 / 24), depths, 0)
    first = ShotPlanner(PARAMS, shaping, 1 / 24)
    _plan(first, depths[:10], 0)
    state = json.loads(json.dumps(first.state()))  # as the next segment receives it
    resumed = ShotPlanner(PARAMS, shaping, 1 / 24, state)
    second = _plan(resumed, depths[10:], 10)
    np.testing.assert_allclose(second[0], whole[0][10:], atol=1e-4)
    np.testing.assert_allclose(second[1], whole[1][10:], atol=1e-4)
    assert resumed.report()["shots"][0]["opens_at_cut"] is False
    fresh = ShotPlanner(PARAMS, shaping, 1 / 24)  # negative: without it, a fresh start
    assert abs(_plan(fresh, depths[10:], 10)[0][0] - whole[0][10]) > 1e-3
    assert fresh.report()["shots"][0]["opens_at_cut"] is None
