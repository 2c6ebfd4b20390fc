import torch

from stereo_inference.depth import estimate_in_batches


class RecordingEstimator:
    name = "recording"

    def __init__(self, max_batch):
        self.max_batch, self.calls = max_batch, []

    def input_size(self, width, height):
        return width, height

    def estimate(self, rgb):
        self.calls.append(rgb.shape[0])
        return rgb[:, :1] * 2


def test_estimates_at_most_max_batch_frames_a_call_and_keeps_frame_order():
    rgb = torch.arange(5, dtype=torch.float32).view(5, 1, 1, 1).expand(5, 3, 2, 2)
    estimator = RecordingEstimator(max_batch=2)
    depth = estimate_in_batches(estimator, rgb)
    assert estimator.calls == [2, 2, 1]
    assert depth[:, 0, 0, 0].tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]


def test_an_estimator_without_a_limit_gets_the_whole_batch_at_once():
    estimator = RecordingEstimator(max_batch=None)
    estimate_in_batches(estimator, torch.zeros(7, 3, 2, 2))
    assert estimator.calls == [7]
