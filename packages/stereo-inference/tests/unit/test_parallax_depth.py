"""A sway's parallax: the turn taken out of a sideways move, and readings
ranged about their median."""

import numpy as np

from stereo_inference.depth.parallax import parallax
from stereo_inference.depth.parallax_depth import ParallaxScale


def _nearness(h: int = 48, w: int = 80) -> np.ndarray:
    """Inverse depth: a near box in front of a receding floor and a far wall."""
    rows = np.linspace(0.2, 1.0, h, dtype=np.float32)[:, None].repeat(w, 1)
    rows[10:30, 30:55] = 1.6
    return rows


def _sway_flow(inverse: np.ndarray, turn: tuple[float, float]) -> np.ndarray:
    """Backward flow (px) of a camera sliding right by 1 px at inverse depth 1
    while it pans and tilts by ``turn`` (px at the frame's centre): the
    rotation's own fields, at a focal length of one width (the sides move
    more than the middle)."""
    h, w = inverse.shape
    y, x = np.mgrid[:h, :w].astype(np.float32)
    x, y = (x - (w - 1) / 2) / w, (y - (h - 1) / 2) / w
    flow = np.zeros((h, w, 2), np.float32)
    flow[..., 0] = inverse + turn[0] * (1 + x * x) + turn[1] * x * y  # content moves left
    flow[..., 1] = turn[0] * x * y + turn[1] * (1 + y * y)
    return flow


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])


def test_a_sideways_move_that_turns_reads_as_depth_whatever_the_turn():
    inverse = _nearness()
    weight = np.ones(inverse.shape, np.float32)
    for turn in ((0.0, 0.0), (-3.0, 0.0), (0.5, 2.5)):  # the turn larger than the parallax
        p = parallax(_sway_flow(inverse, turn), weight)
        assert abs(_correlation(p.inverse_depth, inverse)) > 0.98, turn
        assert p.trust > 0.5, turn


def test_wild_vectors_at_the_border_do_not_turn_a_sideways_move(monkeypatch):
    """5 % of the pixels (a band at the top, where content enters) moving up to
    40 times the parallax, upwards: the sideways fit still reads depth; fitted
    with every vector alike (the negative control), it reads their direction."""
    inverse = _nearness()
    weight = np.ones(inverse.shape, np.float32)
    rng = np.random.default_rng(2)
    flow = _sway_flow(inverse * 0.1, (0.0, 0.0)) + rng.normal(0, 0.005, (48, 80, 2))
    flow[:2, :, 1] = rng.uniform(-4.0, 4.0, (2, 80))  # two rows of 48: about 4 %
    p = parallax(flow.astype(np.float32), weight)
    assert _correlation(p.inverse_depth[4:], inverse[4:]) > 0.95 and p.trust > 0.3
    monkeypatch.setattr("stereo_inference.depth.parallax.OUTLIER", 1e9)
    plain = parallax(flow.astype(np.float32), weight)
    assert abs(_correlation(plain.inverse_depth[4:], inverse[4:])) < 0.5


def test_a_pure_turn_has_no_parallax_to_trust():
    weight = np.ones((48, 80), np.float32)
    flow = _sway_flow(np.zeros((48, 80), np.float32), (2.0, 1.0))
    flow += np.random.default_rng(1).normal(0, 0.02, flow.shape).astype(np.float32)
    assert parallax(flow, weight).trust == 0.0


def test_an_offset_in_a_reading_moves_nothing():
    """A sway's turn left in shifts a reading alike: the nearness stays put."""
    inverse = _nearness()
    weight = np.ones(inverse.shape, np.float32)
    scale = ParallaxScale()
    first = scale.nearness(inverse, weight, 1, inverse)
    shifted = scale.nearness(inverse + 0.7, weight, 1, inverse)
    assert float(np.abs(shifted - first).max()) < 1e-5
    assert float(first[20, 40]) > float(first[-1, 5]) > float(first[0, 5])  # box, floor, wall


def test_a_reading_against_what_the_shot_knows_is_turned_round():
    inverse = _nearness()
    weight = np.ones(inverse.shape, np.float32)
    turned = ParallaxScale().nearness(-inverse, weight, -3, inverse)
    assert _correlation(turned, inverse) > 0.95
    kept = ParallaxScale().nearness(-inverse, weight, -3, np.zeros_like(inverse))
    assert _correlation(kept, inverse) < -0.95  # negative control: nothing known, its sign stands


def test_a_forward_moves_sign_is_the_geometrys_even_against_the_ramp():
    """Driving under a bridge: the bridge, at the top, is nearer than the road
    below it. A forward move's reading keeps the sign its focus of expansion
    gives (nearly everything in front); oriented by the ramp instead (the
    negative control), the bridge and the road turn far."""
    h, w = 48, 80
    inverse = np.linspace(0.3, 1.0, h, dtype=np.float32)[:, None].repeat(w, 1)  # the road
    inverse[:16] = 3.0  # the bridge
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    forward = np.stack([(gx - (w - 1) / 2) * 0.02 * inverse,
                        (gy - (h - 1) / 2) * 0.02 * inverse], -1)
    p = parallax(-forward, np.ones((h, w), np.float32))
    assert p.sure_side
    reading, weight = p.unbiased()
    ramp = np.linspace(0, 1, h, dtype=np.float32)[:, None].repeat(w, 1)
    near = ParallaxScale().nearness(reading, weight, 1, ramp, oriented=p.sure_side)
    bridge, road_far, road_near = near[2:12, 5:-5], near[20:26, 5:-5], near[-6:, 5:-5]
    assert bridge.mean() > road_far.mean() and road_near.mean() > road_far.mean()
    flipped = ParallaxScale().nearness(reading, weight, 1, ramp)
    assert flipped[2:12, 5:-5].mean() < flipped[20:26, 5:-5].mean()


def test_a_sideways_reading_leaves_its_sign_to_what_the_shot_knows():
    """A sway's sideways fit keeps its turn's mean: the sign is a guess."""
    p = parallax(_sway_flow(_nearness(), (-3.0, 0.0)), np.ones((48, 80), np.float32))
    assert not p.sure_side

