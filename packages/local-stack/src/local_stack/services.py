"""Which processes make up the stack, and the typed settings each one gets.

Each child's settings are built here as its own class (``MediaWorkerSettings``,
``VideoWorkerSettings``, ``WebSettings``): the stack's values for the fields
that class declares, what only the CLI decides (the in-process inference
backend, the work folder, each worker's share), and the rest as the class reads
it here. They are validated in the CLI, before any child starts, and handed to
the child as exactly that object's ``STEREO_SPOT_*`` variables
(``settings_env``), which its class reads back field for field.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, TypeVar

from media_worker.settings import MediaWorkerSettings
from pydantic import SecretStr
from shared_types.settings import StereoSpotSettings
from video_worker.settings import VideoWorkerSettings
from web_ui.settings import WebSettings

from local_stack.parallelism import conversion_cores
from local_stack.programs import service_argv
from local_stack.settings import StackSettings
from local_stack.supervisor import ChildSpec

# StackSettings fields that configure the CLI itself; children never read them.
CLI_ONLY_FIELDS = frozenset({
    "workers", "fit_workers", "media_workers", "poll_s", "busy_poll_s", "job_timeout_s",
    "restart_backoff_s", "restart_backoff_max_s", "drain_timeout_s",
})
# Every child's output reaches the CLI's log as it is written.
PROCESS_ENV = {"PYTHONUNBUFFERED": "1"}

S = TypeVar("S", bound=StereoSpotSettings)


def child_settings(cls: type[S], settings: StackSettings, **decided: Any) -> S:
    """``cls``, a service's settings, as the stack runs it: the value of every
    field of ``cls`` that ``settings`` sets (CLI-only ones aside), then
    ``decided``, the rest as ``cls`` reads it in this process (environment,
    defaults). Raises pydantic.ValidationError here, before a child starts."""
    values = {name: value for name, value in settings.model_dump().items()
              if name in cls.model_fields and name not in CLI_ONLY_FIELDS
              and value is not None}
    return cls(**(values | decided))


def settings_env(settings: StereoSpotSettings) -> dict[str, str]:
    """``settings`` as the ``STEREO_SPOT_*`` variables its own class reads back
    (unset optional fields left out)."""
    prefix = settings.model_config.get("env_prefix", "")
    return {f"{prefix}{name.upper()}": _env_value(value)
            for name, value in settings.model_dump().items() if value is not None}


def web_settings(settings: StackSettings) -> WebSettings:
    """What the web UI child runs with."""
    return child_settings(WebSettings, settings)


def video_worker_settings(settings: StackSettings, cores: int) -> VideoWorkerSettings:
    """What a video-worker child runs with: the in-process engine on ``cores`` cores."""
    return child_settings(VideoWorkerSettings, settings, inference_backend="local",
                          work_dir=settings.work_folder, conversion_cores=cores)


def media_worker_settings(settings: StackSettings) -> MediaWorkerSettings:
    """What a media-worker child runs with (and ``local_stack.media_host`` as
    threads of this process): one contiguous run of segments per video-worker
    (media_worker.segment_order)."""
    return child_settings(MediaWorkerSettings, settings, work_dir=settings.work_folder,
                          segment_lanes=settings.workers)


def _env_value(value: object) -> str:
    """``value`` as pydantic-settings reads it back from the environment."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, Path):
        return str(value.resolve())
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value)


def media_worker_specs(settings: StackSettings) -> list[ChildSpec]:
    """``settings.media_workers`` media-workers (``media_worker_settings``)."""
    env = settings_env(media_worker_settings(settings)) | PROCESS_ENV
    return [ChildSpec(f"media-worker-{i + 1}", service_argv("media-worker"), env)
            for i in range(settings.media_workers)]


def video_worker_specs(settings: StackSettings, cpu_count: int | None = None) -> list[ChildSpec]:
    """``settings.workers`` video-workers, each one's conversions given its share
    of the ``cpu_count`` cores."""
    video = service_argv("video-worker")  # seamless unless STEREO_SPOT_SEAMLESS_SEGMENTS=false
    cores = conversion_cores(cpu_count or os.cpu_count() or 1, settings.workers)
    env = settings_env(video_worker_settings(settings, cores)) | PROCESS_ENV
    return [ChildSpec(f"video-worker-{i + 1}", video, env) for i in range(settings.workers)]


def worker_specs(settings: StackSettings, cpu_count: int | None = None) -> list[ChildSpec]:
    """The media-workers, then the video-workers."""
    return [*media_worker_specs(settings), *video_worker_specs(settings, cpu_count)]


def stack_specs(settings: StackSettings) -> list[ChildSpec]:
    """The whole local stack: web-ui, media-worker and the video-workers."""
    web_env = settings_env(web_settings(settings)) | PROCESS_ENV
    return [ChildSpec("web-ui", service_argv("web-ui"), web_env),
            *worker_specs(settings)]
