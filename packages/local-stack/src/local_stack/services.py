"""Which processes make up the stack, and the environment each one reads.

Every service reads its own pydantic-settings class from ``STEREO_SPOT_*``
variables, so the CLI configures children only through their environment.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from local_stack.errors import ServiceMissingError
from local_stack.settings import StackSettings
from local_stack.supervisor import ChildSpec

# console script -> module whose main() it runs (the fallback when the script is missing)
_ENTRY_POINTS = {
    "web-ui": "web_ui.main",
    "media-worker": "media_worker.main",
    "video-worker": "video_worker.main",
}


def service_argv(script: str, *args: str) -> list[str]:
    """argv that runs a service's console script from this interpreter's environment.

    Raises ServiceMissingError when neither the script nor its module is installed.
    """
    found = shutil.which(script, path=str(Path(sys.executable).parent))
    if found:
        return [found, *args]
    module = _ENTRY_POINTS.get(script)
    if module is None:
        raise ServiceMissingError(f"unknown service {script!r}")
    try:
        __import__(module)
    except ImportError as exc:
        raise ServiceMissingError(
            f"the {script} service is not installed ({exc}); "
            "run `npx nx run stereo-spot:install-deps`"
        ) from exc
    code = f"import sys; sys.argv[0] = {script!r}; from {module} import main; sys.exit(main())"
    return [sys.executable, "-c", code, *args]


def service_env(settings: StackSettings) -> dict[str, str]:
    """The STEREO_SPOT_* environment every child gets, derived from ``settings``."""
    env = {
        "STEREO_SPOT_BACKEND": settings.backend,
        "STEREO_SPOT_DATA_DIR": str(Path(settings.data_dir).resolve()),
        "STEREO_SPOT_PUBLIC_BASE_URL": settings.public_base_url,
        "STEREO_SPOT_HOST": settings.host,
        "STEREO_SPOT_PORT": str(settings.port),
        "STEREO_SPOT_AWS_REGION": settings.aws_region,
        "STEREO_SPOT_INPUT_BUCKET": settings.input_bucket,
        "STEREO_SPOT_OUTPUT_BUCKET": settings.output_bucket,
        "STEREO_SPOT_JOBS_TABLE": settings.jobs_table,
        "STEREO_SPOT_SEGMENT_COMPLETIONS_TABLE": settings.segment_completions_table,
        "STEREO_SPOT_SEGMENT_STATUS_TABLE": settings.segment_status_table,
        "STEREO_SPOT_REASSEMBLY_TABLE": settings.reassembly_table,
        "STEREO_SPOT_SQS_WAIT_S": str(settings.sqs_wait_s),
        "STEREO_SPOT_SEGMENT_SECONDS": str(settings.segment_seconds),
        "STEREO_SPOT_VISIBILITY_S": str(settings.visibility_s),
        "STEREO_SPOT_LEASE_S": str(settings.lease_s),
        "STEREO_SPOT_INFERENCE_BACKEND": "local",
        "STEREO_SPOT_SEAMLESS_SEGMENTS": str(settings.seamless_segments).lower(),
        "STEREO_SPOT_MODELS_DIR": str(settings.models_dir),
        "STEREO_SPOT_MODEL_AUTO_DOWNLOAD": str(settings.model_auto_download).lower(),
        "PYTHONUNBUFFERED": "1",
    }
    optional = {
        "STEREO_SPOT_SIGNING_SECRET": settings.signing_secret,
        "STEREO_SPOT_AWS_ENDPOINT_URL": settings.aws_endpoint_url,
        "STEREO_SPOT_CHUNKING_QUEUE_URL": settings.chunking_queue_url,
        "STEREO_SPOT_VIDEO_WORKER_QUEUE_URL": settings.video_worker_queue_url,
        "STEREO_SPOT_SEGMENT_OUTPUT_QUEUE_URL": settings.segment_output_queue_url,
        "STEREO_SPOT_REASSEMBLY_QUEUE_URL": settings.reassembly_queue_url,
        "STEREO_SPOT_FFMPEG": settings.ffmpeg,
        "STEREO_SPOT_HUB_ENDPOINT": settings.hub_endpoint,
    }
    env.update({k: v for k, v in optional.items() if v})
    return env


def worker_specs(settings: StackSettings) -> list[ChildSpec]:
    """``settings.media_workers`` media-workers plus ``settings.workers`` video-workers."""
    env = service_env(settings)
    specs = [ChildSpec(f"media-worker-{i + 1}", service_argv("media-worker"), env)
             for i in range(settings.media_workers)]
    video = service_argv("video-worker")  # seamless unless STEREO_SPOT_SEAMLESS_SEGMENTS=false
    specs += [ChildSpec(f"video-worker-{i + 1}", video, env) for i in range(settings.workers)]
    return specs


def stack_specs(settings: StackSettings) -> list[ChildSpec]:
    """The whole local stack: web-ui, media-worker and the video-workers."""
    return [ChildSpec("web-ui", service_argv("web-ui"), service_env(settings)),
            *worker_specs(settings)]
