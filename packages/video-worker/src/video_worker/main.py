"""The ``video-worker`` console script.

``video-worker``          run both consumers and the periodic janitor until SIGTERM;
``video-worker janitor``  run one janitor pass, print its report as JSON, exit.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

from shared_types.errors import AdapterMissingError
from shared_types.fast_exit import exit_now
from shared_types.temp_sweep import sweep_stale_temp

from video_worker.bootstrap import build_worker
from video_worker.errors import ConfigurationError
from video_worker.settings import VideoWorkerSettings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="video-worker",
        description="StereoSpot video-worker: inference dispatch, segment completion, "
                    "reassembly trigger. Configured by STEREO_SPOT_* environment variables.")
    parser.add_argument("command", nargs="?", choices=["run", "janitor"], default="run",
                        help="run the worker (default) or one janitor pass")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s %(threadName)s %(message)s")
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
    worker.run()
    if argv is None:  # this process's own command, drained: nothing left to tear down
        exit_now(0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
