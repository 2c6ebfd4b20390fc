"""The ``stereo-spot`` console script: a ``convert`` starts its first video-worker first.

Everything the CLI does needs its settings, and reading them takes pydantic
and the models (~0.5 s of imports). Before any of that, a ``convert`` starts
one video-worker that waits for its environment (``shared_types.handoff``):
its own imports and the engine's run on another core meanwhile, and
``run_convert`` hands it the environment when it starts the workers. If the
command ends before that, the worker reads the end of its input and exits.
"""

from __future__ import annotations

import subprocess
import sys

from shared_types.handoff import HANDOFF_FLAG

from local_stack.errors import ServiceMissingError
from local_stack.programs import service_argv
from local_stack.supervisor import start_waiting


def _early_video_worker() -> subprocess.Popen | None:
    try:
        return start_waiting(service_argv("video-worker", HANDOFF_FLAG))
    except (OSError, ServiceMissingError):
        return None  # started the ordinary way later, which reports what is wrong


def _command(argv: list[str]) -> str | None:
    """The subcommand: the first argument that is not an option (``-v`` takes no value)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def main() -> int:
    """Entry point of the ``stereo-spot`` console script."""
    waiting = _early_video_worker() if _command(sys.argv[1:]) == "convert" else None
    from local_stack.cli import main as cli_main

    return cli_main(waiting_worker=waiting)
