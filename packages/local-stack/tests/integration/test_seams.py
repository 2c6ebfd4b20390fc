"""Depth state rebuilt from the previous segment's tail (real engine, heuristic depth)."""

from pathlib import Path

import pytest
from shared_types.keys import output_segment_key, segment_key
from shared_types.models import ConversionParams, DepthModel, OutputMode, SegmentPayload
from shared_types.testing.memory import MemoryStorage

from local_stack.seams import SeamlessInference, warm_depth_state

pytest.importorskip("stereo_inference")


def _payload(index: int, total: int = 3) -> SegmentPayload:
    key = segment_key("job1", index, total, OutputMode.SBS)
    return SegmentPayload(job_id="job1", segment_index=index, total_segments=total,
                          mode=OutputMode.SBS, bucket="input", key=key)


def test_warming_on_a_segment_tail_gives_the_engine_a_depth_range(clip_4s: Path):
    state = warm_depth_state(clip_4s, ConversionParams(), tail_frames=8)
    assert state["model"] == "heuristic" and state["hi"] > state["lo"]
    assert warm_depth_state(clip_4s, ConversionParams(depth_model=DepthModel.IW3)) is None


def test_only_segments_with_a_predecessor_get_a_state(clip_4s: Path, tmp_path: Path):
    inputs, outputs = MemoryStorage("input"), MemoryStorage("output")
    inference = SeamlessInference(inputs, outputs, work_dir=tmp_path)
    assert inference.previous_state(_payload(0), ConversionParams()) is None
    assert inference.previous_state(_payload(2), ConversionParams()) is None  # 1 is missing
    inputs.put_file(segment_key("job1", 0, 3, OutputMode.SBS), clip_4s)
    inputs.put_file(segment_key("job1", 1, 3, OutputMode.SBS), clip_4s)
    assert inference.previous_state(_payload(1), ConversionParams())["version"] == 1
    result = inference.convert(_payload(1), output_segment_key("job1", 1), ConversionParams())
    assert result.frames == 96 and outputs.exists(output_segment_key("job1", 1))
