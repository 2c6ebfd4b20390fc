"""Cross-eyed and VR180 frames from packed SBS frames."""

import numpy as np

from stereo_inference.layouts import Vr180Projection, swap_halves, vr180_side


def _packed(w=16, h=8):
    """One packed SBS yuv420p frame: left eye 10s, right eye 200s, every plane."""
    frame = np.zeros((1, h * 3 // 2, 2 * w), np.uint8)
    frame[0, :h, :w], frame[0, :h, w:] = 10, 200
    chroma = frame[0, h:].reshape(2, h // 2, w)
    chroma[:, :, :w // 2], chroma[:, :, w // 2:] = 10, 200
    return frame


def test_swapping_halves_moves_every_plane_of_each_eye_across():
    out = swap_halves(_packed())
    assert (out[0, :8, :16] == 200).all() and (out[0, :8, 16:] == 10).all()
    chroma = out[0, 8:].reshape(2, 4, 16)
    assert (chroma[:, :, :8] == 200).all() and (chroma[:, :, 8:] == 10).all()
    assert np.array_equal(swap_halves(out), _packed())  # twice is the original


def test_vr180_puts_each_eye_ahead_on_its_own_half_sphere_in_black():
    w, h = 64, 32
    frames = np.zeros((1, h * 3 // 2, 2 * w), np.uint8)
    frames[0, :h, :w], frames[0, :h, w:] = 100, 180
    frames[0, h:] = 128
    side = vr180_side(w)
    out = Vr180Projection((w, h), side)(frames)
    assert out.shape == (1, side * 3 // 2, 2 * side)
    centre = side // 2
    assert out[0, centre, centre] == 100 and out[0, centre, side + centre] == 180
    assert out[0, 0, 0] == 16 and out[0, centre, 1] == 16  # beyond the 90° picture: black
    assert (out[0, side:] == 128).all()  # neutral chroma stays neutral
    # a 90° picture spans the middle half of the 180° width
    row = out[0, centre, :side]
    lit = np.flatnonzero(row > 16)
    assert abs(lit[0] - side / 4) <= 2 and abs(lit[-1] - 3 * side / 4) <= 2


def test_ten_bit_frames_get_ten_bit_black():
    frames = np.full((1, 24, 32), 512, np.uint16)
    out = Vr180Projection((16, 16), 16, bit_depth=10)(frames)
    assert out.dtype == np.uint16 and out[0, 0, 0] == 64
