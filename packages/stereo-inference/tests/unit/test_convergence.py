import numpy as np

from stereo_inference.convergence import AutoConvergence, ShotCuts, subject_depth, thumbnails


def test_the_plane_moves_smoothly_within_a_shot_and_jumps_at_a_cut():
    auto = AutoConvergence(follow=0.1)
    subjects = np.array([0.2] * 5 + [0.8] * 5 + [0.4] * 3)
    cuts = [True] + [False] * 9 + [True, False, False]
    planes = auto.planes(subjects, cuts)
    assert planes[0] == np.float32(0.8)  # 1 - subject: the subject on the screen
    steps = np.abs(np.diff(planes[:10]))
    assert steps.max() <= 0.1 * 0.6 + 1e-6  # a new subject mid-shot is followed gently
    assert planes[9] > 0.4  # not there yet
    assert planes[10] == np.float32(0.6)  # at the cut: the new shot's plane at once


def test_cuts_are_found_where_the_depth_changes_at_once_not_where_it_drifts():
    rng = np.random.default_rng(1)
    a, b = rng.random((1, 1, 36, 64)), rng.random((1, 1, 36, 64))
    drift = [a + 0.01 * i for i in range(4)]
    frames = np.concatenate(drift + [b, b + 0.01]).astype(np.float32)
    assert ShotCuts().cuts(thumbnails(frames)) == [True, False, False, False, True, False]


def test_thumbnails_of_a_tiny_depth_map():
    assert thumbnails(np.ones((2, 1, 2, 2), np.float32)).shape == (2, 9, 16)


def test_the_subject_is_the_nearer_part_of_the_middle():
    d = np.zeros((1, 1, 10, 10), np.float32)
    d[0, 0, 3:7, 3:7] = 0.9  # something near in the middle, far around it
    assert subject_depth(d)[0] > 0.5
