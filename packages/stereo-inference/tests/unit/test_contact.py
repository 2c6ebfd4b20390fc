import cv2
import numpy as np

from stereo_inference.depth.contact import contact_depth
from stereo_inference.depth.regions import segment

H, W = 72, 128


def _scene(*, box=(20, 50, 40, 70), near_box=None, seed=0) -> np.ndarray:
    """A textured floor (lower half), a back wall (upper half), a red box
    standing on the floor (rows top..bottom, columns left..right) and
    optionally a green box cut by the bottom of the frame."""
    rng = np.random.default_rng(seed)
    img = np.empty((H, W, 3), np.float32)
    img[:36] = (0.35, 0.45, 0.7)  # wall
    img[36:] = (0.55, 0.5, 0.4)  # floor
    top, bottom, left, right = box
    img[top:bottom, left:right] = (0.8, 0.2, 0.2)
    if near_box is not None:
        img[near_box[0]:, near_box[1]:near_box[2]] = (0.2, 0.7, 0.3)
    grain = cv2.GaussianBlur(rng.random((H, W)).astype(np.float32), (0, 0), 1.5)
    img *= (0.7 + 0.6 * (grain - grain.min()) / np.ptp(grain))[..., None]
    return np.clip(img, 0, 1)


def test_a_box_on_the_floor_is_one_region_apart_from_floor_and_wall():
    labels = segment(_scene())
    box = np.bincount(labels[26:48, 44:66].ravel()).argmax()
    assert (labels[22:48, 42:68] == box).mean() > 0.85
    assert labels[60, 100] != box
    assert labels[10, 100] != box
    assert labels[10, 100] != labels[60, 100]


def test_a_standing_box_takes_the_floors_depth_where_it_stands():
    depth = contact_depth(_scene())
    foot = depth[49, 100]  # the floor at the box's bottom row
    assert abs(float(depth[26:48, 44:66].mean()) - foot) < 0.05
    # all of it nearer than the wall beside its top, unlike a plain ramp
    assert float(depth[22, 55]) > float(depth[22, 100]) + 0.15


def test_the_floor_keeps_lower_is_nearer_and_the_wall_is_behind_the_floor():
    depth = contact_depth(_scene())
    floor = depth[44:, 100]
    assert np.all(np.diff(floor) >= 0)
    assert floor[-1] > floor[0] + 0.25
    assert float(depth[5:30, 100].max()) <= float(depth[40, 100]) + 0.02


def test_a_box_cut_by_the_bottom_of_the_frame_is_nearest():
    depth = contact_depth(_scene(near_box=(30, 90, 120)))
    assert float(depth[36:70, 94:116].mean()) > 0.9
    # nearer than the standing box right beside it, whose foot is higher up
    assert float(depth[36:48, 94:116].mean()) > float(depth[36:48, 44:66].mean()) + 0.2


def test_pure_noise_where_a_seed_cell_gets_no_pixels_still_segments():
    rgb = np.random.default_rng(0).integers(0, 255, (24, 40, 3)).astype(np.float32) / 255
    labels = segment(rgb)
    assert labels.shape == (24, 40)
    assert labels.min() == 0
    assert contact_depth(rgb).shape == (24, 40)


def _grain(img: np.ndarray, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    grain = cv2.GaussianBlur(rng.random(img.shape[:2]).astype(np.float32), (0, 0), 1.5)
    return np.clip(img * (0.7 + 0.6 * (grain - grain.min()) / np.ptp(grain))[..., None], 0, 1)


def _close_shot() -> np.ndarray:
    """Someone close in front of a wall, no floor in sight: a torso cut by the
    bottom of the frame (more of the bottom row than the wall beside it) and
    a head above it, the wall all around."""
    img = np.empty((H, W, 3), np.float32)
    img[:] = (0.45, 0.55, 0.4)  # wall
    img[50:, 30:100] = (0.75, 0.25, 0.45)  # torso
    img[22:46, 52:78] = (0.85, 0.7, 0.55)  # head
    return _grain(img)


def test_in_a_close_shot_the_torso_is_in_front_of_the_wall_not_the_floor():
    depth = contact_depth(_close_shot())
    # ground contact alone took the torso for the floor and the wall, which
    # reaches the bottom row beside it, for something at the very front
    assert float(depth[55:70, 45:85].mean()) > float(depth[55:70, 5:20].mean()) + 0.05


def test_in_a_close_shot_the_head_is_in_front_of_the_wall_around_it():
    depth = contact_depth(_close_shot())
    assert float(depth[26:42, 58:72].mean()) > float(depth[26:42, 30:45].mean()) + 0.03
    assert float(depth[26:42, 58:72].mean()) > float(depth[26:42, 85:100].mean()) + 0.03

