"""lookahead: each batch leaves with the depth inputs of the frames after it."""

import numpy as np

from stereo_inference.decode import FrameBatch
from stereo_inference.lookahead import with_lookahead


class _Wants:
    def __init__(self, frames: int) -> None:
        self.lookahead = frames


def _batches(sizes, pulled):
    start = 0
    for n in sizes:
        pulled.append(n)
        frames = np.arange(start, start + n, dtype=np.uint8)[:, None, None, None] * np.ones(
            (1, 2, 2, 3), np.uint8)
        yield FrameBatch(depth_rgb=frames, eyes=np.zeros((n, 3, 2), np.uint8))
        start += n


def test_each_batch_gets_the_frames_after_it_as_far_as_asked_and_fewer_at_the_end():
    pulled: list[int] = []
    out = list(with_lookahead(_batches([1, 2, 1, 1, 3], pulled), _Wants(3)))
    firsts = [None if b.ahead is None else [int(f[0, 0, 0]) for f in b.ahead] for b in out]
    assert firsts == [[1, 2, 3], [3, 4, 5], [4, 5, 6], [5, 6, 7], None]
    assert [len(b.depth_rgb) for b in out] == [1, 2, 1, 1, 3]  # the batches themselves unchanged


def test_it_decodes_no_further_than_the_lookahead_needs():
    pulled: list[int] = []
    stream = with_lookahead(_batches([1] * 20, pulled), _Wants(4))
    next(stream)
    assert len(pulled) == 5  # the first batch and the four after it, not the whole file


def test_an_estimator_that_reads_no_frames_ahead_gets_the_batches_as_they_are():
    pulled: list[int] = []
    out = list(with_lookahead(_batches([2, 2], pulled), object()))
    assert [b.ahead for b in out] == [None, None]


class _Reading:
    """The heuristic estimator, recording what it is handed ahead of each batch."""

    lookahead = 3

    def __init__(self):
        from stereo_inference.depth import load_estimator

        self.inner = load_estimator("heuristic", models_dir=None, device="cpu")
        self.name, self.max_batch, self.seen = self.inner.name, None, []

    def input_size(self, width, height):
        return self.inner.input_size(width, height)

    def look_ahead(self, frames):
        self.seen.append([int(f[0, 0, 0]) for f in frames])
        self.inner.look_ahead(frames)

    def estimate(self, rgb):
        return self.inner.estimate(rgb)


def test_the_depth_stage_hands_the_frames_ahead_to_the_estimator_before_its_batch():
    from shared_types.models import ConversionParams, OutputMode

    from stereo_inference.synthesis import StereoRenderer
    from stereo_inference.temporal import TemporalNormalizer

    estimator = _Reading()
    renderer = StereoRenderer(OutputMode.HALF_SBS, ConversionParams(), estimator,
                              TemporalNormalizer("heuristic"), "cpu")
    pulled: list[int] = []
    for batch in with_lookahead(_batches([1, 1, 2, 1], pulled), estimator):
        renderer.estimate(batch)
    assert estimator.seen == [[1, 2, 3], [2, 3, 4], [4]]  # and nothing before the last batch
