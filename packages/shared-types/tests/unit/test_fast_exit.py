"""exit_now ends the process with its code and loses no output on the way."""

import os
import subprocess
import sys

SCRIPT = """
import logging, os, sys
logging.basicConfig(filename=sys.argv[1], level=logging.INFO)
logging.getLogger("w").info("drained")
print("wrote out.mp4", end="")  # a pipe: block-buffered, still in the buffer
if sys.argv[2] == "exit_now":
    from shared_types.fast_exit import exit_now
    exit_now(3)
os._exit(3)
"""


def run(tmp_path, how):
    log = tmp_path / f"{how}.log"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(log), how],
                          capture_output=True, text=True, timeout=60, env=env)
    return proc, log.read_text()


def test_the_code_the_buffered_output_and_the_log_all_arrive(tmp_path):
    proc, log = run(tmp_path, "exit_now")
    assert proc.returncode == 3
    assert proc.stdout == "wrote out.mp4"
    assert "drained" in log


def test_a_bare_os_exit_would_lose_the_buffered_output(tmp_path):
    """The negative control: what exit_now's flushing is for."""
    proc, _ = run(tmp_path, "bare")
    assert proc.returncode == 3
    assert proc.stdout == ""
