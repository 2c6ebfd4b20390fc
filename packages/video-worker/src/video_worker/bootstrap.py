"""The one wiring place: settings in, a ready VideoWorker out.

``backend`` (the ports) comes from ``shared_types.backend_loader`` unless given; ``inference`` from
``settings.inference_backend`` unless given (tests inject doubles here).
"""

from __future__ import annotations

import threading

from shared_types.backend_loader import load_backend
from shared_types.conversion import EngineRuntime
from shared_types.ports import Backend
from shared_types.stop_event import StopEvent

from video_worker.errors import ConfigurationError
from video_worker.inference_backend import InferenceBackend
from video_worker.settings import VideoWorkerSettings
from video_worker.worker import VideoWorker


def build_inference(
    settings: VideoWorkerSettings, backend: Backend, stop: threading.Event
) -> InferenceBackend:
    """The inference backend named by ``settings.inference_backend``.

    Raises ConfigurationError when its required setting is missing.
    """
    kind = settings.inference_backend
    if kind == "local":
        # the engine is the optional extra `local`: only this backend imports it
        from video_worker.engine_child import engine_in_child
        from video_worker.local_backend import LocalInferenceBackend

        runtime = EngineRuntime(
            models_dir=settings.models_dir, ffmpeg=settings.ffmpeg,
            auto_download=settings.model_auto_download, hub_endpoint=settings.hub_endpoint,
            cores=settings.conversion_cores, depth_stride=settings.depth_stride)
        in_child = engine_in_child(settings) if settings.engine_in_child else None
        local = LocalInferenceBackend(
            backend.input_storage, backend.output_storage, convert_file=in_child,
            runtime=runtime, work_dir=settings.work_dir, seamless=settings.seamless_segments)
        if in_child is None:
            local.warm_up()  # the engine's import overlaps start-up, not the first segment
        return local
    if kind == "http":
        if not settings.inference_http_url:
            raise ConfigurationError(
                "STEREO_SPOT_INFERENCE_HTTP_URL must be set for the http inference backend")
        from video_worker.http_backend import HttpInferenceBackend  # httpx: ~0.1 s to import

        return HttpInferenceBackend(
            settings.inference_http_url, backend.input_storage, backend.output_storage,
            timeout_s=settings.inference_http_timeout_s, seamless=settings.seamless_segments,
            shared_secret=(settings.inference_shared_secret.get_secret_value()
                           if settings.inference_shared_secret else None))
    if not settings.sagemaker_endpoint:
        raise ConfigurationError(
            "STEREO_SPOT_SAGEMAKER_ENDPOINT must be set for the sagemaker inference backend")
    from aws_adapters.sagemaker_async import sagemaker_async

    from video_worker.sagemaker_backend import SageMakerInferenceBackend

    endpoint, read_location = sagemaker_async(
        settings.sagemaker_endpoint, region=settings.aws_region,
        endpoint_url=settings.aws_endpoint_url,
        runtime_endpoint_url=settings.sagemaker_runtime_endpoint_url)
    return SageMakerInferenceBackend(
        endpoint, backend.input_storage, backend.output_storage, fetch_location=read_location,
        max_in_flight=settings.inference_max_in_flight, poll_s=settings.inference_poll_s,
        timeout_s=settings.inference_timeout_s, stop=stop, seamless=settings.seamless_segments)


def build_worker(
    settings: VideoWorkerSettings,
    backend: Backend | None = None,
    *,
    inference: InferenceBackend | None = None,
) -> VideoWorker:
    """A VideoWorker wired for ``settings``. Raises ConfigurationError, and
    AdapterMissingError when the backend's adapter package is not installed."""
    backend = backend if backend is not None else load_backend(settings)
    stop = StopEvent()  # a drain wakes the consumers' waits at once
    if inference is None:
        inference = build_inference(settings, backend, stop)
    return VideoWorker(backend=backend, inference=inference, settings=settings, stop=stop)
