"""shared_types.handoff: a waiting worker's environment and log file, through stdin."""

import subprocess
import sys
from pathlib import Path

import pytest

from shared_types.handoff import receive_handoff, write_handoff

# the receiving side runs in a child: it rewires its stdout and stderr
CHILD = ("import os, sys\n"
         "from shared_types.handoff import receive_handoff\n"
         "handed = receive_handoff()\n"
         "print('handed' if handed else 'not needed', os.environ.get('STEREO_SPOT_X'))\n"
         "print('an error line', file=sys.stderr)\n")


def _child() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_the_environment_arrives_and_all_output_goes_to_the_log(tmp_path: Path):
    log = tmp_path / "logs" / "worker.log"
    with _child() as child:
        write_handoff(child.stdin, {"STEREO_SPOT_X": "42"}, log)
        out, err = child.stdout.read(), child.stderr.read()  # at their end: it exited
        assert child.wait(timeout=60) == 0
    assert (out, err) == (b"", b"")  # nothing on the pipes it was started with
    assert log.read_text().splitlines() == ["handed 42", "an error line"]


def test_the_end_of_input_without_a_handoff_means_not_needed():
    with _child() as child:
        child.stdin.close()
        out = child.stdout.read()
        assert child.wait(timeout=60) == 0
    assert out.decode().split() == ["not", "needed", "None"]


def test_a_line_that_is_not_a_handoff_is_a_clear_error():
    import io

    with pytest.raises(ValueError, match="not a worker handoff"):
        receive_handoff(io.StringIO('{"environment": {}}\n'))
