"""The local backend's engine in a child process, killed at its deadline (opt-in).

With ``STEREO_SPOT_ENGINE_IN_CHILD=true`` the ``local`` backend converts through
``stereo_inference.engine_process.EngineProcess``: one warm spawned child per
worker, the engine imported and its depth model loaded there once, and killed
(its process group: SIGTERM, then SIGKILL) when a conversion runs past
``conversion_timeout_base_s`` + ``conversion_timeout_s_per_frame`` x its frames,
so a native call stuck inside one batch cannot pin the worker; the segment
fails with ``inference_timeout`` and the next one gets a fresh child. The
engine's signature is kept: progress (the heartbeats) and the depth state
handed to the next segment cross the pipe.

Off by default: the local stack's workers import the engine once and fork
their siblings from that process (``--handoff``), and a spawned child imports
it again (docs/BENCHMARKS.md, "The server's child process").
"""

from __future__ import annotations

from shared_types.conversion import ConvertFile
from stereo_models.depth_models import best_installed

from video_worker.errors import ConfigurationError
from video_worker.settings import VideoWorkerSettings


def engine_in_child(settings: VideoWorkerSettings) -> ConvertFile:
    """``convert_file`` run in a child started now (it imports the engine while
    the worker starts). Raises ConfigurationError when the engine is not installed."""
    try:
        from stereo_inference.deadline import DeadlinePolicy
        from stereo_inference.engine_process import EngineProcess
    except ImportError as exc:
        raise ConfigurationError(
            "STEREO_SPOT_ENGINE_IN_CHILD needs the stereo-inference package "
            f"(pip install 'stereo-spot-video-worker[local]'): {exc}") from exc
    engine = EngineProcess(
        policy=DeadlinePolicy(base_s=settings.conversion_timeout_base_s,
                              s_per_frame=settings.conversion_timeout_s_per_frame),
        warm=best_installed(settings.models_dir).value)
    engine.start()
    return engine.convert
