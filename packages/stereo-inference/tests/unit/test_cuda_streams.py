"""Off a GPU the stage streams change nothing (the GPU side is checked by
bench/gpu_stages.py --streams-ab, which compares the outputs of both ways)."""

import numpy as np

from stereo_inference.cuda_streams import StageStreams
from stereo_inference.decode import FrameBatch


def test_on_a_cpu_no_stream_no_event_and_the_blocks_still_run():
    streams = StageStreams("cpu")
    batch = FrameBatch(depth_rgb=None, eyes=np.zeros((1, 6, 4), np.uint8))
    ran = []
    with streams.for_depth():
        ran.append("depth")
    streams.handed_over(batch)
    assert batch.ready is None
    with streams.for_render(batch):
        ran.append("render")
    assert ran == ["depth", "render"]
