from pathlib import Path

import torch

from stereo_inference.runtime import compute_threads, partial_path, resolve_device


def test_the_partial_output_is_a_hidden_sibling_with_the_same_suffix():
    assert partial_path(Path("/out/seg.mkv")) == Path("/out/.seg.partial.mkv")
    assert partial_path(Path("/out/seg")) == Path("/out/.seg.partial.mp4")


def test_an_explicit_device_wins():
    assert resolve_device("cpu") == torch.device("cpu")


def test_cpu_threads_are_restored_after_the_call():
    before = torch.get_num_threads()
    with compute_threads(torch.device("cpu"), 1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
