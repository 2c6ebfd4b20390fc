"""``media-worker``: consume the chunking and reassembly queues until SIGTERM."""

from __future__ import annotations

import logging
import sys

from shared_types.fast_exit import exit_now
from shared_types.temp_sweep import sweep_stale_temp

from media_worker.bootstrap import build_worker
from media_worker.settings import MediaWorkerSettings

log = logging.getLogger(__name__)


def main() -> int:
    """Entry point: read settings once, configure logging, run both consumers;
    once they have drained the process ends at once (``fast_exit``)."""
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(process)d %(threadName)s %(name)s: %(message)s",
    )
    settings = MediaWorkerSettings()
    sweep_stale_temp(settings.work_folder, ("chunk-", "join-"))  # left by a killed worker
    worker = build_worker(settings)
    log.info("media-worker started: backend=%s segment_seconds=%g", settings.backend,
             settings.segment_seconds)
    worker.run()
    log.info("media-worker stopped")
    exit_now(0)  # drained: every message settled, nothing left to tear down


if __name__ == "__main__":
    sys.exit(main())
