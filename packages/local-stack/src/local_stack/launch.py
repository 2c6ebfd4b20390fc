"""The ``stereo-spot`` console script: a ``convert`` starts its video-workers first.

Everything the CLI does needs its settings, and reading them takes pydantic
and the models (~0.5 s of imports). Before any of that, a ``convert`` starts
video-workers waiting for their environment (``shared_types.handoff``), one
per spare core: their own imports and the engine's run on other cores
meanwhile, and ``run_convert`` hands each its environment when it starts the
workers. If the command ends before that, a waiting worker reads the end of
its input and exits.
"""

from __future__ import annotations

import os
import subprocess
import sys

from shared_types.handoff import HANDOFF_FLAG
from shared_types.malloc_arenas import use_one_malloc_arena

from local_stack.errors import ServiceMissingError
from local_stack.parallelism import default_workers
from local_stack.programs import service_argv
from local_stack.supervisor import start_waiting

MAX_EARLY_WORKERS = 64  # StackSettings.workers' own bound


def _video_workers(argv: list[str]) -> int:
    """How many video-workers this ``convert`` will run, read the way its settings
    will be (``--workers``, else ``STEREO_SPOT_WORKERS``, else one per two cores).
    A guess made before they are read: a worker too many gets no environment and
    exits, one too few is started the ordinary way."""
    value = os.environ.get("STEREO_SPOT_WORKERS")
    for i, arg in enumerate(argv):
        if arg == "--workers" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--workers="):
            value = arg.split("=", 1)[1]
    if value is None:
        return default_workers(os.cpu_count() or 1)
    try:
        return max(1, min(int(value), MAX_EARLY_WORKERS))
    except ValueError:
        return 1  # the settings will refuse it with a clear message


def _early_count(workers: int, cpu_count: int) -> int:
    """How many of ``workers`` to start early: one per core beside this process's
    own imports, at least one. More would import on the same cores as the first
    and delay it (measured on 2 cores, 2 workers: the first segment began
    0.2-0.3 s later with both early than with one); the rest start the
    ordinary way."""
    return max(1, min(workers, cpu_count - 1))


def _early_video_workers(count: int) -> list[subprocess.Popen]:
    try:
        argv = service_argv("video-worker", HANDOFF_FLAG)
        return [start_waiting(argv) for _ in range(count)]
    except (OSError, ServiceMissingError):
        return []  # started the ordinary way later, which reports what is wrong


def _command(argv: list[str]) -> str | None:
    """The subcommand: the first argument that is not an option (``-v`` takes no value)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def main() -> int:
    """Entry point of the ``stereo-spot`` console script."""
    use_one_malloc_arena()  # before any thread: the stages it hosts come and go per job
    argv = sys.argv[1:]
    waiting = []
    if _command(argv) == "convert":
        count = _early_count(_video_workers(argv), os.cpu_count() or 1)
        waiting = _early_video_workers(count)
    from local_stack.cli import main as cli_main

    return cli_main(waiting_workers=waiting)
