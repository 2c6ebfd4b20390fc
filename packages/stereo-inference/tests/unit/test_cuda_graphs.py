"""Off a GPU ``Graphed`` calls its function as it is (the GPU side, graphs
replayed, is checked by bench/gpu_stages.py --graphs-ab, which compares the
outputs of a conversion with and without them)."""

import numpy as np
import torch

from stereo_inference.cuda_graphs import Graphed


def test_on_a_cpu_it_calls_the_function_every_time_and_records_nothing():
    calls = []

    def double(x):
        calls.append(x)
        return x * 2

    graphed = Graphed(double, "double")
    for _ in range(3):
        assert torch.equal(graphed(torch.ones(2)), torch.full((2,), 2.0))
    assert np.array_equal(graphed(np.ones(2)), np.full(2, 2.0))
    assert len(calls) == 4 and graphed.recorded == 0
