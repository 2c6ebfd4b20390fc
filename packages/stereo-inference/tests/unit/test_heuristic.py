import torch

from stereo_inference.depth import load_estimator


def test_the_bottom_of_a_plain_frame_is_nearer_than_the_top():
    est = load_estimator("heuristic", models_dir=None, device=torch.device("cpu"))
    w, h = est.input_size(640, 360)
    assert w == 128 and h == 72
    depth = est.estimate(torch.full((1, 3, h, w), 0.5))
    assert float(depth[0, 0, -5:].mean()) > float(depth[0, 0, :5].mean())


def test_sharp_detail_reads_nearer_than_flat_areas():
    est = load_estimator("heuristic", models_dir=None, device=torch.device("cpu"))
    frame = torch.full((1, 3, 72, 128), 0.5)
    frame[..., 25:50, 10:40] = (torch.rand(25, 30) > 0.5).float()  # textured patch
    depth = est.estimate(frame)
    assert float(depth[0, 0, 32:42, 18:32].mean()) > float(depth[0, 0, 32:42, 90:120].mean())


def test_a_static_scene_gives_the_same_depth_every_frame():
    est = load_estimator("heuristic", models_dir=None, device=torch.device("cpu"))
    frame = torch.rand(1, 3, 72, 128)
    first = est.estimate(frame)
    for _ in range(3):
        again = est.estimate(frame)
    assert torch.equal(first, again)
