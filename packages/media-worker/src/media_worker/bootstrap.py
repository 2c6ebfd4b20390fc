"""The one wiring place of the media worker: settings in, a ready MediaWorker out."""

from __future__ import annotations

from shared_types.backend_loader import load_backend, receive_wait_s
from shared_types.consumer import ConsumerConfig
from shared_types.ports import Backend
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner
from stereo_media.probe_limits import ProbeLimits

from media_worker.deps import MediaDeps
from media_worker.settings import MediaWorkerSettings
from media_worker.worker import MediaWorker


def probe_limits(settings: MediaWorkerSettings) -> ProbeLimits:
    """What a source may be, as ``settings`` say."""
    return ProbeLimits(max_bytes=settings.max_source_bytes,
                       max_duration_s=settings.max_duration_s,
                       max_width=settings.max_width, max_height=settings.max_height,
                       timeout_s=settings.probe_timeout_s, max_fps=settings.max_fps,
                       max_frames=settings.max_frames,
                       max_pixel_frames=settings.max_pixel_frames)


def build_worker(settings: MediaWorkerSettings, backend: Backend | None = None) -> MediaWorker:
    """Wire a MediaWorker from settings; ``backend`` overrides the configured one
    (tests, or an in-process driver that already holds a backend).
    Raises FfmpegNotFoundError when no ffmpeg can be found, AdapterMissingError
    when the backend's adapter package is not installed."""
    limits = probe_limits(settings)
    deps = MediaDeps(
        backend=backend if backend is not None else load_backend(settings),
        runner=FfmpegRunner(ffmpeg_path(settings.ffmpeg), timeout_s=settings.ffmpeg_timeout_s,
                            tick_s=min(1.0, settings.lease_s / 3)),
        limits=limits,
        work_dir=settings.work_folder,
        segment_seconds=settings.segment_seconds,
        segment_lanes=settings.segment_lanes,
        lease_s=settings.lease_s,
        source_urls=settings.source_urls,
    )
    config = ConsumerConfig(wait_s=receive_wait_s(settings), visibility_s=settings.visibility_s,
                            backoff_base_s=settings.backoff_base_s,
                            max_attempts=settings.max_attempts)
    return MediaWorker(deps=deps, config=config)
