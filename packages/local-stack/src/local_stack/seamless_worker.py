"""A video-worker process whose local inference carries depth across segments.

The same VideoWorker as the ``video-worker`` console script (built by its
``build_worker``), with :class:`local_stack.seams.SeamlessInference` injected
when inference runs in-process; other inference backends are left as they are.
"""

from __future__ import annotations

import logging
import sys


def main(argv: list[str] | None = None) -> int:
    """Run the worker until SIGTERM; 2 when it is misconfigured."""
    from video_worker.bootstrap import build_backend, build_worker
    from video_worker.errors import ConfigurationError
    from video_worker.settings import VideoWorkerSettings

    from local_stack.seams import SeamlessInference

    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s %(threadName)s %(message)s")
    settings = VideoWorkerSettings()
    try:
        backend = build_backend(settings)
        inference = None
        if settings.inference_backend == "local":
            inference = SeamlessInference(
                backend.input_storage, backend.output_storage, models_dir=settings.models_dir,
                ffmpeg=settings.ffmpeg, work_dir=settings.work_dir)
        worker = build_worker(settings, backend, inference=inference)
    except ConfigurationError as exc:
        print(f"video-worker: {exc}", file=sys.stderr)
        return 2
    worker.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
