"""The local backend with its engine in a child process (STEREO_SPOT_ENGINE_IN_CHILD):
a segment stuck inside a batch is killed at its deadline and fails with
``inference_timeout``; the worker's next segment is converted (#52)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from shared_types.conversion import EngineRuntime
from shared_types.keys import parse_segment_key, segment_key
from shared_types.models import ConversionParams, OutputMode
from shared_types.testing.memory import MemoryStorage
from stereo_inference.deadline import DeadlinePolicy
from stereo_inference.engine_process import EngineProcess
from stereo_inference.errors import EngineTimeoutError
from stereo_inference.testing.stuck import stuck_convert_file
from stereo_media.testing.media import make_video

from video_worker.bootstrap import build_inference
from video_worker.local_backend import LocalInferenceBackend
from video_worker.settings import VideoWorkerSettings

MODE = OutputMode.HALF_SBS


def test_a_stuck_segment_is_killed_and_the_next_is_converted(tmp_path, backend):
    inp, out = MemoryStorage("input"), MemoryStorage("output")
    segment = make_video(tmp_path / "segment.mp4", seconds=0.5, audio=False)
    for job in ("stuck", "fine"):
        inp.put_file(segment_key(job, 0, 1, MODE), segment)
    engine = EngineProcess(stuck_convert_file, policy=DeadlinePolicy(base_s=8, s_per_frame=0.5),
                           margin_s=0.5, term_grace_s=0.5)
    local = LocalInferenceBackend(inp, out, convert_file=engine.convert,
                                  runtime=EngineRuntime(models_dir=tmp_path / "models"),
                                  work_dir=tmp_path / "work")
    beats = []
    try:
        engine.start()
        stuck_child = engine.pid
        with pytest.raises(EngineTimeoutError) as caught:
            local.convert(parse_segment_key("input", segment_key("stuck", 0, 1, MODE)),
                          "jobs/stuck/segments/0.mp4", ConversionParams())
        assert caught.value.code == "inference_timeout" and "killed" in str(caught.value)
        assert not Path(f"/proc/{stuck_child}").exists()  # killed and reaped
        result = local.convert(parse_segment_key("input", segment_key("fine", 0, 1, MODE)),
                               "jobs/fine/segments/0.mp4", ConversionParams(),
                               on_progress=lambda done, total=None: beats.append(done))
    finally:
        engine.close()
    assert result.frames == 12 and out.exists("jobs/fine/segments/0.mp4")
    assert beats and beats[-1] == 12  # the heartbeats crossed the pipe
    assert not out.exists("jobs/stuck/segments/0.mp4")
    assert list((tmp_path / "work").iterdir()) == []  # both segment folders removed


def test_the_setting_puts_the_local_engine_in_a_child(backend, tmp_path):
    settings = VideoWorkerSettings(_env_file=None, engine_in_child=True,
                                   models_dir=tmp_path / "models")
    local = build_inference(settings, backend, threading.Event())
    engine = local._convert_file.__self__
    try:
        assert isinstance(engine, EngineProcess) and engine.pid is not None
    finally:
        engine.close()
    plain = build_inference(VideoWorkerSettings(_env_file=None), backend, threading.Event())
    assert plain._convert_file is None  # the control: in-process by default
