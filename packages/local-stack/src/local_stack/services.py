"""Which processes make up the stack, and the environment each one reads.

Every service reads its own pydantic-settings class from ``STEREO_SPOT_*``
variables, so the CLI configures children only through their environment.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from media_worker.settings import MediaWorkerSettings
from pydantic import SecretStr

from local_stack.parallelism import conversion_cores
from local_stack.programs import service_argv
from local_stack.settings import StackSettings
from local_stack.supervisor import ChildSpec

# StackSettings fields that configure the CLI itself; children never read them.
CLI_ONLY_FIELDS = frozenset({
    "workers", "fit_workers", "media_workers", "poll_s", "busy_poll_s", "job_timeout_s",
    "restart_backoff_s", "restart_backoff_max_s", "drain_timeout_s",
})

def service_env(settings: StackSettings) -> dict[str, str]:
    """The STEREO_SPOT_* environment every child gets: each field of ``settings``
    (unset optional ones left out) but those only the CLI reads, plus the
    in-process inference backend and the work folder (``work_folder``)."""
    prefix = settings.model_config.get("env_prefix", "")
    env = {f"{prefix}{name.upper()}": _env_value(value)
           for name, value in settings.model_dump().items()
           if name not in CLI_ONLY_FIELDS and value is not None}
    env[f"{prefix}INFERENCE_BACKEND"] = "local"
    env[f"{prefix}WORK_DIR"] = _env_value(settings.work_folder)
    env["PYTHONUNBUFFERED"] = "1"
    return env


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
    """``settings.media_workers`` media-workers, publishing one contiguous run of
    segments per video-worker (media_worker.segment_order)."""
    env = service_env(settings)
    prefix = settings.model_config.get("env_prefix", "")
    media_env = {**env, f"{prefix}SEGMENT_LANES": str(settings.workers)}
    return [ChildSpec(f"media-worker-{i + 1}", service_argv("media-worker"), media_env)
            for i in range(settings.media_workers)]


def video_worker_specs(settings: StackSettings, cpu_count: int | None = None) -> list[ChildSpec]:
    """``settings.workers`` video-workers, each one's conversions given its share
    of the ``cpu_count`` cores."""
    env = service_env(settings)
    prefix = settings.model_config.get("env_prefix", "")
    video = service_argv("video-worker")  # seamless unless STEREO_SPOT_SEAMLESS_SEGMENTS=false
    cores = conversion_cores(cpu_count or os.cpu_count() or 1, settings.workers)
    video_env = {**env, f"{prefix}CONVERSION_CORES": str(cores)}
    return [ChildSpec(f"video-worker-{i + 1}", video, video_env)
            for i in range(settings.workers)]


def worker_specs(settings: StackSettings, cpu_count: int | None = None) -> list[ChildSpec]:
    """The media-workers, then the video-workers."""
    return [*media_worker_specs(settings), *video_worker_specs(settings, cpu_count)]


def media_worker_settings(settings: StackSettings) -> MediaWorkerSettings:
    """What a media-worker of ``media_worker_specs`` reads from its environment,
    for one run as threads of this process (``local_stack.media_host``)."""
    values = {name: value for name, value in settings.model_dump().items()
              if name in MediaWorkerSettings.model_fields and name not in CLI_ONLY_FIELDS
              and value is not None}
    values["work_dir"] = settings.work_folder
    return MediaWorkerSettings(**values, segment_lanes=settings.workers)


def stack_specs(settings: StackSettings) -> list[ChildSpec]:
    """The whole local stack: web-ui, media-worker and the video-workers."""
    return [ChildSpec("web-ui", service_argv("web-ui"), service_env(settings)),
            *worker_specs(settings)]
