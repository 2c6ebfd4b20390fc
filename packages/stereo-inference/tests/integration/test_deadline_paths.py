"""Every engine path stops at its deadline inside the process; the server's
conversion frees its lock when it does, and its left-behind temp folders are
swept (#52, finding 13)."""

from __future__ import annotations

import os
import time

import pytest
from fastapi.testclient import TestClient
from shared_types.models import ConversionParams
from shared_types.testing.memory import MemoryStorage

from stereo_inference import convert_file
from stereo_inference.deadline import DeadlinePolicy
from stereo_inference.errors import EngineTimeoutError
from stereo_inference.server import create_app
from stereo_inference.settings import InferenceSettings

NO_TIME = DeadlinePolicy(base_s=0.001, s_per_frame=0.0)


def test_the_frame_path_stops_at_its_deadline_with_no_one_listening(clip, tmp_path):
    out = tmp_path / "out.mp4"
    with pytest.raises(EngineTimeoutError, match="deadline"):
        convert_file(clip, out, mode="half-sbs", deadline=NO_TIME)  # no progress callback
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no partial output left
    convert_file(clip, out, mode="half-sbs")  # the control: the default deadline is enough
    assert out.exists()


def test_the_imported_depth_path_stops_too(clip, tmp_path):
    from stereo_inference.depth_export import export_depth

    depth = export_depth(clip, tmp_path / "depth.mkv", depth_model="heuristic")
    assert depth > 0
    with pytest.raises(EngineTimeoutError):
        convert_file(clip, tmp_path / "out.mp4", mode="half-sbs", deadline=NO_TIME,
                     depth_video=tmp_path / "depth.mkv")
    with pytest.raises(EngineTimeoutError):  # and the depth export itself
        export_depth(clip, tmp_path / "late.mkv", depth_model="heuristic", deadline=NO_TIME)
    assert not (tmp_path / "late.mkv").exists()


def _client(tmp_path, buckets, **settings):
    app = create_app(InferenceSettings(models_dir=tmp_path / "models", work_dir=tmp_path / "work",
                                       **settings),
                     storage_factory=lambda bucket: buckets[bucket])
    return TestClient(app, raise_server_exceptions=False)


def test_the_server_stops_a_conversion_at_its_deadline_and_frees_its_lock(clip, tmp_path):
    buckets = {"in": MemoryStorage("in"), "out": MemoryStorage("out")}
    buckets["in"].put_file("a.mp4", clip)
    body = {"mode": "half-sbs", "input_uri": "s3://in/a.mp4", "output_uri": "s3://out/b.mp4",
            "params": ConversionParams().model_dump(mode="json")}
    with _client(tmp_path, buckets, deadline_base_s=0.001, deadline_s_per_frame=0.001) as c:
        first = c.post("/invocations", json=body)
        second = c.post("/invocations", json=body)  # would wait forever on a held lock
    for answer in (first, second):
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["code"] == "inference_timeout"
    assert not buckets["out"].exists("b.mp4")
    assert list((tmp_path / "work").iterdir()) == []


def test_the_server_sweeps_request_folders_left_behind(tmp_path):
    work = tmp_path / "work"
    old, fresh = work / "stereo-inference-old", work / "stereo-inference-fresh"
    for folder in (old, fresh):
        folder.mkdir(parents=True)
        (folder / "input.video").write_bytes(b"x" * 1000)
    long_ago = time.time() - 3600 - 601 - 10
    os.utime(old, (long_ago, long_ago))
    _client(tmp_path, {}, segment_timeout_s=3600)
    assert not old.exists()
    assert fresh.exists()  # the control: a request folder that may be in use stays
