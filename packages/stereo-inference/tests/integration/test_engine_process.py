"""The hard stop: a conversion stuck inside a batch (a native call that never
returns) is killed at its deadline in its child process; the server's lock is
freed, the next request is served, and no process is left behind (#52)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from shared_types.testing.waiting import wait_until
from stereo_media.testing.media import make_video

from stereo_inference.deadline import DeadlinePolicy
from stereo_inference.engine_process import EngineProcess
from stereo_inference.errors import EngineTimeoutError, EngineTransientError
from stereo_inference.server import create_app
from stereo_inference.settings import InferenceSettings
from stereo_inference.testing.stuck import (
    deaf_stuck_convert_file,
    dying_convert_file,
    marker_of,
    stuck_convert_file,
)

# long enough for a loaded machine to reach the first batch; a stuck clip of 3 frames
POLICY = DeadlinePolicy(base_s=8.0, s_per_frame=1.0)


def _gone(pid: int) -> bool:
    """Neither running nor a zombie waiting to be reaped."""
    return not Path(f"/proc/{pid}").exists()


def _ended(pid: int) -> bool:
    """Not running (an orphan's zombie waits for init, which is not ours to reap)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.fixture
def stuck(tmp_path) -> Path:
    return make_video(tmp_path / "stuck.mp4", seconds=0.125, audio=False)


def test_the_server_kills_a_conversion_stuck_in_a_batch_and_serves_the_next(
        tmp_path, clip, stuck):
    settings = InferenceSettings(file_root=tmp_path, models_dir=tmp_path / "models",
                                 work_dir=tmp_path / "work", deadline_base_s=POLICY.base_s,
                                 deadline_s_per_frame=POLICY.s_per_frame)
    app = create_app(settings, convert=stuck_convert_file)
    out, fine = tmp_path / "out", tmp_path / "fine.mp4"
    shutil.copy(clip, fine)
    with TestClient(app, raise_server_exceptions=False) as c:
        first_child = app.state.engine.pid
        hung = c.post("/invocations", json={"mode": "half-sbs", "input_uri": f"file://{stuck}",
                                            "output_uri": f"file://{out}/stuck.mp4"})
        assert hung.status_code == 400, hung.text
        error = hung.json()["error"]
        assert error["code"] == "inference_timeout"
        assert "killed" in error["message"] and "deadline" in error["message"]
        assert marker_of(stuck).exists()  # it was stuck inside a batch, not before one
        assert _gone(first_child)  # killed and reaped: no zombie
        served = c.post("/invocations", json={"mode": "half-sbs", "input_uri": f"file://{fine}",
                                              "output_uri": f"file://{out}/next.mp4"})
        assert served.status_code == 200, served.text
        assert served.json()["blocks"][0]["data"]["frames"] == 24
        second_child = app.state.engine.pid
    assert (out / "next.mp4").exists()
    left = [p.name for p in out.iterdir() if p.name.startswith((".", "stuck"))]
    assert left == []  # nothing of the killed conversion, no partial
    assert second_child != first_child
    assert _gone(second_child)  # the server's shutdown stopped and reaped it


def test_without_the_child_process_a_stuck_batch_outlives_its_deadline(tmp_path, stuck):
    # the negative control: the in-process path checks its deadline between batches only
    release, outcome = threading.Event(), {}
    policy = DeadlinePolicy(base_s=5.0, s_per_frame=0.0)

    def convert_in_process() -> None:
        try:
            stuck_convert_file(stuck, tmp_path / "out.mp4", mode="half-sbs", deadline=policy,
                               release=release)
        except Exception as exc:  # noqa: BLE001 (what the test looks at)
            outcome["error"] = exc

    started = time.monotonic()
    thread = threading.Thread(target=convert_in_process, daemon=True)
    thread.start()
    assert wait_until(marker_of(stuck).exists, timeout_s=60)
    assert wait_until(lambda: time.monotonic() > started + policy.base_s + 1, timeout_s=60)
    assert thread.is_alive()  # past its deadline, and nothing stopped it
    release.set()  # the native call returns at last, and only then can the deadline act:
    thread.join(60)  # at the next batch (this clip has one, so it even completes)
    assert not thread.is_alive()
    assert isinstance(outcome.get("error"), (EngineTimeoutError, type(None)))


def test_a_child_that_ignores_sigterm_is_killed_with_its_ffmpeg(tmp_path, stuck):
    engine = EngineProcess(deaf_stuck_convert_file, policy=DeadlinePolicy(base_s=3.0,
                                                                           s_per_frame=0.0),
                           margin_s=0.5, term_grace_s=0.5)
    try:
        with pytest.raises(EngineTimeoutError, match="killed"):
            engine.convert(stuck, tmp_path / "out.mp4", mode="half-sbs")
        helper = int((tmp_path / "helper.pid").read_text())
        assert wait_until(lambda: _ended(helper))  # its group went with it
    finally:
        engine.close()


def test_a_child_that_dies_is_a_transient_failure_and_the_next_gets_a_new_one(
        tmp_path, clip, stuck):
    engine = EngineProcess(dying_convert_file, policy=POLICY)
    try:
        with pytest.raises(EngineTransientError, match="ended unexpectedly"):
            engine.convert(stuck, tmp_path / "out.mp4", mode="half-sbs")
        assert engine.convert(clip, tmp_path / "next.mp4", mode="half-sbs").frames == 24
    finally:
        engine.close()


def test_a_child_that_does_not_start_in_time_is_a_transient_failure(tmp_path, clip):
    engine = EngineProcess(policy=POLICY, start_s=0.001, margin_s=0.0)
    try:  # no spawned interpreter imports the engine within a millisecond
        with pytest.raises(EngineTransientError, match="did not start within"):
            engine.convert(clip, tmp_path / "out.mp4", mode="half-sbs")
    finally:
        engine.close()


class _Enough(Exception):
    pass


def test_a_caller_that_gives_up_in_its_progress_callback_gets_a_fresh_child(tmp_path, clip):
    engine = EngineProcess(policy=POLICY, margin_s=0.5, term_grace_s=0.5)

    def give_up(done, total):
        raise _Enough(f"{done} of {total} frames is enough")

    try:
        engine.start()
        abandoned = engine.pid
        with pytest.raises(_Enough):
            engine.convert(clip, tmp_path / "given-up.mp4", mode="half-sbs", progress=give_up)
        assert engine.pid != abandoned
        assert wait_until(lambda: _gone(abandoned))  # not left converting for nobody
        result = engine.convert(clip, tmp_path / "next.mp4", mode="anaglyph")
        assert result.frames == 24 and (tmp_path / "next.mp4").exists()  # its own answer
        assert not (tmp_path / "given-up.mp4").exists()
    finally:
        engine.close()


_ORPHAN_CHECK = """
import os, sys
from stereo_inference.deadline import DeadlinePolicy
from stereo_inference.engine_process import EngineProcess
if __name__ == "__main__":
    engine = EngineProcess(policy=DeadlinePolicy())
    engine.start()
    print(engine.pid, flush=True)
    sys.stdin.readline()
"""


def test_the_child_ends_when_its_parent_is_killed(tmp_path):
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN_CHECK], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        assert not _ended(child)  # the control: it runs while its parent does
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        assert wait_until(lambda: _ended(child))
    finally:
        parent.kill()
        parent.wait()
        parent.stdin.close()
        parent.stdout.close()
