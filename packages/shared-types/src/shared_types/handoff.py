"""A worker started before its configuration is known gets it on stdin.

``stereo-spot convert`` starts its first video-worker before it has imported
what its own settings need (pydantic and the models, ~0.5 s), so the two
processes import at the same time on different cores instead of one after
the other. Such a worker is started with ``HANDOFF_FLAG``: it imports (and
warms up what it can without settings), then reads one JSON line -- the
``STEREO_SPOT_*`` environment it would otherwise have been started with and
the file its output goes to -- and carries on as if started that way. End of
input without a line means it is not needed: it exits.

This module imports nothing heavy: both sides use it before pydantic loads.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO

HANDOFF_FLAG = "--config-from-stdin"


def write_handoff(stream: IO[bytes], env: Mapping[str, str], log_path: Path | None) -> None:
    """Send a waiting worker its environment and log file, then end its input."""
    line = json.dumps({"env": dict(env), "log": str(log_path) if log_path else None})
    try:
        stream.write(line.encode() + b"\n")
    finally:
        stream.close()


def receive_handoff(stream: IO[str] | None = None) -> bool:
    """Wait for the handoff on ``stream`` (stdin) and apply it: the environment
    into ``os.environ``, stdout and stderr onto the log file (appended).
    Returns False at end of input (no handoff: the worker is not needed).
    Raises ValueError for a line that is not a handoff."""
    line = (stream or sys.stdin).readline()
    if not line.strip():
        return False
    try:
        handoff = json.loads(line)
        env, log = handoff["env"], handoff["log"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"not a worker handoff: {line[:80]!r}") from exc
    os.environ.update({str(k): str(v) for k, v in env.items()})
    if log:
        Path(log).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    return True
