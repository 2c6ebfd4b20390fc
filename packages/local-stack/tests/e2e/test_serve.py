"""``stereo-spot serve`` driven over HTTP like a browser would."""

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from local_stack.testing.media import video_facts


def _wait_healthy(base: str, proc: subprocess.Popen, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, "stereo-spot serve exited early"
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("web-ui did not answer /healthz")


def _follow_sse(url: str, timeout_s: float = 180) -> list[tuple[str, dict]]:
    events, name = [], None
    with httpx.stream("GET", url, timeout=timeout_s) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and name:
                data = line.split(":", 1)[1].strip()
                events.append((name, json.loads(data) if data.startswith("{") else data))
                if name in ("done", "gone"):
                    return events
    return events


@contextmanager
def serving(env: dict[str, str], port: int) -> Iterator[str]:
    """``stereo-spot serve`` (one worker of each kind) on ``port`` until the block
    ends; then SIGTERM, and it must drain and exit 0. Yields its base URL."""
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "stereo-spot"), "serve", "--port", str(port),
         "--workers", "1"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        _wait_healthy(base, proc)
        yield base
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, output
    assert "running at" in output
    assert "stopped" in output


def test_serve_converts_an_upload_and_streams_progress_and_the_result(
    clip_4s, tmp_path: Path, stack_env, free_port
):
    with serving(stack_env(tmp_path / "data", STEREO_SPOT_SEGMENT_SECONDS="2"),
                 free_port) as base:
        created = httpx.post(f"{base}/api/jobs", json={"mode": "sbs", "title": "e2e"}, timeout=10)
        assert created.status_code == 201, created.text
        job = created.json()
        upload = httpx.post(job["upload_url"], data=job["upload_fields"],
                            files={"file": ("clip.mp4", clip_4s.read_bytes())}, timeout=30)
        assert upload.status_code == 204, upload.text

        events = _follow_sse(f"{base}/jobs/{job['job_id']}/events")
        assert events[-1] == ("done", {"status": "completed"})
        stages = [data["status"] for name, data in events if name == "progress"]
        assert stages[-1] == "completed"

        playback = httpx.get(f"{base}/api/jobs/{job['job_id']}/playback", timeout=10).json()
        assert "LRF_Full_SBS" in playback["download_name"]
        ranged = httpx.get(playback["url"], headers={"Range": "bytes=0-99"}, timeout=10)
        assert ranged.status_code == 206
        assert len(ranged.content) == 100
        assert ranged.headers["content-range"].startswith("bytes 0-99/")
        whole = httpx.get(playback["url"], timeout=30)
        out = tmp_path / "final.mp4"
        out.write_bytes(whole.content)
        facts = video_facts(out)
        assert (facts.width, facts.height, facts.frames) == (320, 96, 96)
        assert facts.has_audio


def test_serve_on_a_port_in_use_exits_at_once_with_one_line_naming_it(
    tmp_path: Path, stack_env, run_cli
):
    import socket

    with socket.socket() as holder:  # another program on the port
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        # (a serve that restarted its web UI forever would run into this timeout)
        result = run_cli(["serve", "--port", str(port), "--workers", "1"],
                         stack_env(tmp_path / "data"), timeout_s=60)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"port {port}" in lines[0] and "--port" in lines[0]
    assert "running at" not in result.stdout  # nothing was started


def test_serve_beyond_loopback_requires_a_login_and_checks_the_host(
        tmp_path: Path, stack_env, free_port):
    """#52 finding 8: `serve --host 0.0.0.0` answered anyone. Now a password is
    made and printed at start, every page and API call needs it, and a Host
    that is not one of the configured names is refused; /healthz stays open."""
    import re
    import threading

    base = f"http://127.0.0.1:{free_port}"
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "stereo-spot"), "serve", "--host", "0.0.0.0",
         "--port", str(free_port), "--workers", "1", "--allowed-host", "stereo.lan"],
        env=stack_env(tmp_path / "data"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    lines: list[str] = []
    told = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)
            if "password" in line:
                told.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert told.wait(60), "".join(lines)
        password = re.search(r"with the password (\S+)", "".join(lines)).group(1)
        _wait_healthy(base, proc)
        login = ("stereo-spot", password)
        assert httpx.get(f"{base}/", timeout=10).status_code == 401
        assert httpx.post(f"{base}/api/jobs", json={"mode": "sbs"}, timeout=10).status_code == 401
        assert httpx.get(f"{base}/", auth=("stereo-spot", "guess"), timeout=10).status_code == 401
        assert httpx.get(f"{base}/", auth=login, timeout=10).status_code == 200  # the control
        named = httpx.get(f"{base}/", auth=login, headers={"Host": "stereo.lan"}, timeout=10)
        assert named.status_code == 200
        foreign = httpx.get(f"{base}/", auth=login, headers={"Host": "rebound.example"},
                            timeout=10)
        assert foreign.status_code == 400
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        reader.join(timeout=10)
        proc.stdout.close()
    assert proc.returncode == 0, "".join(lines)


def test_serve_on_a_wildcard_address_with_no_name_refuses_to_start(tmp_path, stack_env,
                                                                   run_cli, free_port):
    done = run_cli(["serve", "--host", "0.0.0.0", "--port", str(free_port)],
                   stack_env(tmp_path / "data"), timeout_s=60)
    assert done.returncode == 1
    assert "--allowed-host" in done.stderr
