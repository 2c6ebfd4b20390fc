"""The ``video-worker`` console script.

``video-worker``          run both consumers and the periodic janitor until SIGTERM;
``video-worker janitor``  run one janitor pass, print its report as JSON, exit.

``--config-from-stdin`` (``shared_types.handoff``): started by ``stereo-spot
convert`` before its environment was known, the worker imports the engine
(what a local worker waits for), then reads its environment from stdin. When
it is asked to fork sibling workers, it first pays the default depth model's
one-time costs, so that they inherit them too.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import threading
from pathlib import Path

from shared_types.errors import AdapterMissingError
from shared_types.fast_exit import exit_now
from shared_types.handoff import (
    HANDOFF_FLAG,
    forked_any,
    receive_handoff,
    signal_forked,
    wait_for_forked,
)
from shared_types.malloc_arenas import use_one_malloc_arena
from shared_types.temp_sweep import sweep_stale_temp

from video_worker.bootstrap import build_worker
from video_worker.errors import ConfigurationError
from video_worker.local_backend import engine_convert_file, prepare_default_depth
from video_worker.settings import VideoWorkerSettings


def main(argv: list[str] | None = None) -> int:
    use_one_malloc_arena()  # before any thread: a segment reuses the last one's memory
    parser = argparse.ArgumentParser(
        prog="video-worker",
        description="StereoSpot video-worker: inference dispatch, segment completion, "
                    "reassembly trigger. Configured by STEREO_SPOT_* environment variables.")
    parser.add_argument("command", nargs="?", choices=["run", "janitor"], default="run",
                        help="run the worker (default) or one janitor pass")
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument(HANDOFF_FLAG, dest="handoff", action="store_true",
                        help="import the engine, then wait for the environment on stdin")
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s %(threadName)s %(message)s")
    if args.handoff:
        try:
            engine_convert_file()  # only the local backend's worker is started this way
        except ConfigurationError:
            pass  # reported on first use, as for any worker
        if not receive_handoff(before_fork=_prepare_for_siblings):
            return 0  # the command that started it ended first: not needed
    try:
        settings = VideoWorkerSettings()
        worker = build_worker(settings)
    except (ConfigurationError, AdapterMissingError) as exc:
        print(f"video-worker: {exc}", file=sys.stderr)
        return 2
    if args.command == "janitor":
        print(worker.janitor_pass().model_dump_json())
        return 0
    # conversions cut short by a killed worker (the local engine's segment folders)
    sweep_stale_temp(settings.work_dir or Path(tempfile.gettempdir()), ("vw-",))
    if forked_any():  # its forks drain when it does, whoever told it to
        def stop_forks() -> None:
            worker.stop.wait()
            signal_forked()

        threading.Thread(target=stop_forks, name="stop-forks", daemon=True).start()
    worker.run()
    # siblings it forked got the same stop signal and drain meanwhile (bounded
    # by a message's lease: past it, what they hold is handed out again anyway)
    wait_for_forked(settings.visibility_s)
    if argv is None:  # this process's own command, drained: nothing left to tear down
        exit_now(0)
    return 0


def _prepare_for_siblings() -> None:
    """Before forking siblings: what each would otherwise pay again (a settings
    error is left for the worker's own start to report)."""
    try:
        prepare_default_depth(VideoWorkerSettings().models_dir)
    except (ConfigurationError, ValueError):  # (pydantic's ValidationError is a ValueError)
        pass


if __name__ == "__main__":
    raise SystemExit(main())
