"""`stereo-inference serve` as a real process answering the SageMaker contract."""

import os
import socket
import subprocess
import sys
import time

import httpx
import pytest
from stereo_media.testing.media import make_video


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SECRET = "e2e-shared-secret"
AUTH = {"X-StereoSpot-Secret": SECRET}


@pytest.fixture
def server(tmp_path):
    port = free_port()
    env = {**os.environ, "STEREO_SPOT_FILE_ROOT": str(tmp_path),
           "STEREO_SPOT_MODELS_DIR": str(tmp_path / "models"),
           "STEREO_SPOT_INFERENCE_SHARED_SECRET": SECRET}
    proc = subprocess.Popen(
        [sys.executable, "-m", "stereo_inference.cli", "serve", "--host", "127.0.0.1",
         "--port", str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/ping", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            pytest.fail("server did not start: " + proc.stdout.read1().decode(errors="replace"))
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()


def test_the_server_converts_a_file_and_refuses_bad_requests(server, tmp_path):
    source = make_video(tmp_path / "in.mp4", seconds=1.0)
    refused = httpx.post(f"{server}/invocations", timeout=30, json={"mode": "sbs"})
    assert refused.status_code == 401  # outside SageMaker: the shared secret or nothing
    resp = httpx.post(f"{server}/invocations", timeout=120, headers=AUTH, json={
        "input_uri": f"file://{source}", "output_uri": f"file://{tmp_path}/out/o.mp4",
        "mode": "anaglyph", "params": {"anaglyph_method": "half-color"}})
    assert resp.status_code == 200, resp.text
    assert resp.json()["blocks"][0]["data"]["frames"] == 24
    assert (tmp_path / "out" / "o.mp4").stat().st_size > 0
    bad = httpx.post(f"{server}/invocations", timeout=30, headers=AUTH, json={
        "input_uri": "file:///etc/hostname", "output_uri": f"file://{tmp_path}/x.mp4",
        "mode": "sbs"})
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "invalid_request"
