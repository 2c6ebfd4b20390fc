import cv2
import numpy as np

from stereo_inference.depth.parallax import FlowField
from stereo_inference.depth.still_camera import camera_still, changed, settle, still_over


def test_a_moving_camera_is_told_from_a_still_one(texture):
    h, w = 72, 128
    # edges everywhere, moving a third of a pixel a frame
    picture = (texture(h, w + 8, 5) * 255).astype(np.uint8)
    shift = np.float32([[1, 0, -1 / 3], [0, 1, 0]])
    moved = np.ascontiguousarray(cv2.warpAffine(picture, shift, (w + 8, h))[:, :w])
    picture = np.ascontiguousarray(picture[:, :w])
    flow, _ = FlowField().backward(moved, picture)
    assert not camera_still(flow, moved)
    flow, _ = FlowField().backward(picture, picture)
    assert camera_still(flow, picture)


def test_a_slow_orbit_that_looks_still_in_each_reading_moves_over_them():
    """An orbit keeps the middle distance in place: read 8, 12 and 16 frames
    ahead, each flow is small across most edges (each reading alone looks
    still), but it grows with the distance; a still camera's noise does not,
    and motion no camera's model explains is no camera's."""
    h, w = 72, 128
    stripes = np.tile(((np.arange(w) // 3) % 2 * 160 + 40).astype(np.uint8), (h, 1))
    rows = np.linspace(-1, 1, h, dtype=np.float32)[:, None]  # near below, far above

    def orbit(k: int) -> np.ndarray:
        flow = np.zeros((h, w, 2), np.float32)
        flow[..., 0] = 0.0075 * k * rows  # across the stripes: 0.03 px median 8 frames ahead
        return flow

    flows = [(k, orbit(k)) for k in (8, 12, 16)]
    assert all(camera_still(f, stripes) for _, f in flows)  # each alone: still
    assert not still_over(flows, stripes, lambda: True)
    assert still_over(flows, stripes, lambda: False)  # no camera motion explains it
    noise = np.random.default_rng(3).normal(0, 0.01, (3, h, w, 2)).astype(np.float32)
    assert still_over(list(zip((8, 12, 16), noise, strict=True)), stripes, lambda: True)
    assert not still_over(flows[1:], stripes, lambda: True)  # 12 to 16 ahead: grown as far
    assert still_over(flows[:1], stripes, lambda: True)  # one reading: nothing to grow


def test_a_still_cameras_flow_rests_where_the_picture_did_not_change():
    h, w = 72, 128
    still = np.full((h, w), 90, np.uint8)
    still[:, 64:] = 200  # one strong edge, which does not move
    moved = still.copy()
    moved[10:24, 10:24] = 30  # a square appears at the left
    flow = np.full((h, w, 2), 0.5, np.float32)  # DIS's guess everywhere
    flow[:, 60:68] = 0.0  # (across the edge the flow is measured: nothing moves)
    rest, change = settle(flow, moved, still)
    assert change is not None  # still: the edge did not move
    assert float(np.abs(rest[40:, 90:]).max()) == 0.0  # unchanged: at rest
    assert float(rest[17, 17, 0]) == 0.5  # where it changed, the flow stays
    assert float(change[17, 17]) == 1.0 and float(change[50, 100]) == 0.0
    # a moving camera: the edge moved too, so the flow is left as it is
    across = np.full((h, w, 2), 0.5, np.float32)
    same, none = settle(across, moved, still)
    assert none is None and same is across


def test_changed_reads_small_differences_as_none():
    a = np.full((20, 20), 100, np.uint8)
    assert float(changed(a, a + 1).max()) == 0.0  # one level: noise
    assert float(changed(a, a + 10).min()) == 1.0
