"""In-process inference: download the segment, run the engine, upload the result.

The engine is ``stereo_inference.convert_file``, imported on first use so the
worker starts (and its other backends work) where the engine is not installed.
Uploading to the output bucket is what raises the segment-output event (the
local storage emits it; on AWS, S3 does). The previous segment's input is
downloaded beside the segment and passed as the engine's ``context_path``
(seamless segments) -- unless this process converted that segment itself: then
the engine's returned depth state is passed on directly (the sequential ideal,
and no re-decoding of the previous segment's tail).

The engine's import, and the default depth model's one-time costs (OpenCV's
colour tables for the weight-free one), are paid in a background thread when
the backend is built, so they overlap the worker's start-up and the chunking
of the first job instead of delaying its first segment.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path

from shared_types.comfort_reports import comfort_key
from shared_types.conversion import ConvertFile, EngineRuntime, FrameProgress
from shared_types.errors import NotFoundError
from shared_types.failure import disk_full_as
from shared_types.keys import depth_video_key
from shared_types.models import ConversionParams, DepthModel, SegmentPayload
from shared_types.ports import ObjectStorage
from stereo_models.depth_models import best_installed

from video_worker.errors import ConfigurationError
from video_worker.inference_backend import InferenceResult
from video_worker.request import context_key

log = logging.getLogger(__name__)

_KEPT_STATES = 16  # depth states of recent segments, for their next segment


def engine_convert_file() -> ConvertFile:
    """``stereo_inference.convert_file``. Raises ConfigurationError when the
    engine package is not installed."""
    try:
        from stereo_inference import convert_file
    except ImportError as exc:
        raise ConfigurationError(
            "the local inference backend needs the engine: install video-worker with "
            f"its `local` extra (pip install 'stereo-spot-video-worker[local]'): {exc}"
        ) from exc
    return convert_file


def prepare_default_depth(models_dir: Path | None) -> DepthModel:
    """Pay the one-time costs of the depth model a job asks for by default (the
    best one installed in ``models_dir``) in this process now; returns it.
    Blocks. Raises ConfigurationError when the engine is not installed."""
    engine_convert_file()
    from stereo_inference.depth import prepare

    depth = best_installed(models_dir)
    prepare(depth)
    return depth


class LocalInferenceBackend:
    """Runs the 2D-to-3D engine in this process, one segment at a time per caller."""

    def __init__(
        self,
        input_storage: ObjectStorage,
        output_storage: ObjectStorage,
        *,
        convert_file: ConvertFile | None = None,
        runtime: EngineRuntime = EngineRuntime(),  # noqa: B008 (frozen)
        work_dir: Path | None = None,
        seamless: bool = True,
    ) -> None:
        self._input, self._output = input_storage, output_storage
        # how the engine runs here: models, ffmpeg, the cores one conversion may use,
        # whether a missing depth model is downloaded (by the first segment needing it)
        self._runtime = runtime
        self._convert_file = convert_file
        self._work_dir = work_dir
        self.seamless = seamless
        self._states: OrderedDict[tuple[str, int], dict] = OrderedDict()
        self._lock = threading.Lock()

    def warm_up(self) -> threading.Thread:
        """Import the engine, and pay the default depth model's one-time costs, in a
        background thread (a failure surfaces on first use)."""
        def load() -> None:
            started = time.perf_counter()
            try:
                engine_convert_file()
            except ConfigurationError:
                return
            imported = time.perf_counter()
            depth = prepare_default_depth(self._runtime.models_dir)
            log.info("engine ready: imported in %.2f s, %s prepared in %.2f s", imported - started,
                     depth.value, time.perf_counter() - imported)
        # not a daemon thread: an interpreter that exits while OpenCV is inside
        # ``prepare`` aborts (std::terminate); a plain exit waits for it instead
        # (~0.5 s at most; a drained worker ends with ``fast_exit`` anyway)
        thread = threading.Thread(target=load, name="engine-import")
        thread.start()
        return thread

    def convert(
        self, payload: SegmentPayload, output_key: str, params: ConversionParams,
        on_progress: FrameProgress | None = None,
    ) -> InferenceResult:
        """Convert the segment in a temp dir and upload it to ``output_key``,
        with the previous segment as context (see ``request.context_key``).

        Raises the engine's errors unchanged (InvalidInputError is permanent,
        EngineTransientError and EngineDiskFullError transient), DiskFullError
        for any other full disk met in the work folder, ObjectNotFoundError when
        the segment is gone, and ConfigurationError when the engine is not installed.
        """
        convert_file = self._convert_file or engine_convert_file()
        if self._work_dir is not None:
            self._work_dir.mkdir(parents=True, exist_ok=True)
        prefix = f"vw-{payload.job_id}-{payload.segment_index}-"
        where = self._work_dir or Path(tempfile.gettempdir())
        with disk_full_as(where, doing=f"converting segment {payload.segment_index + 1}"), \
                tempfile.TemporaryDirectory(prefix=prefix, dir=self._work_dir) as tmp:
            source, target = Path(tmp) / "segment.mp4", Path(tmp) / "converted.mp4"
            self._input.get_file(payload.key, source)
            seam = context_key(payload, params, seamless=self.seamless)
            state = self._take_state(payload, payload.segment_index - 1) if seam else None
            context = None
            if seam and state is None:
                context = self._fetch_context(payload, seam, Path(tmp) / "context.mp4")
            depth = self._imported_depth(payload, Path(tmp) / "depth.mkv")
            result = convert_file(
                source, target, mode=payload.mode, params=params, progress=on_progress,
                context_path=context, depth_state=state, depth_video=depth,
                runtime=self._runtime,
            )
            if result.comfort_report is not None:  # first: whoever sees the video finds it
                self._output.put_file(comfort_key(output_key), result.comfort_report,
                                      content_type="application/json", move=True)
            self._output.put_file(output_key, target, content_type="video/mp4", move=True)
        self._keep_state(payload, result.depth_state)
        log.info("job_id=%s segment_index=%d converted in-process: %d frames in %.2f s",
                 payload.job_id, payload.segment_index, result.frames, result.elapsed_s)
        return InferenceResult(
            output_key=output_key, frames=result.frames, duration_s=result.duration_s,
            elapsed_s=result.elapsed_s, fps=result.fps, depth_model=result.depth_model,
        )

    def _imported_depth(self, payload: SegmentPayload, path: Path) -> Path | None:
        """The job's imported depth video (``keys.depth_video_key``), fetched to
        ``path``; None when it has none. A job with one is chunked into one
        segment, so the depth video's frames are the segment's."""
        if payload.total_segments != 1:
            return None
        try:
            self._input.get_file(depth_video_key(payload.job_id), path)
        except NotFoundError:
            return None
        return path

    def _take_state(self, payload: SegmentPayload, index: int) -> dict | None:
        with self._lock:
            return self._states.pop((payload.job_id, index), None)

    def _keep_state(self, payload: SegmentPayload, state: dict | None) -> None:
        if not state or payload.segment_index + 1 >= (payload.total_segments or 0):
            return
        with self._lock:
            self._states[(payload.job_id, payload.segment_index)] = state
            while len(self._states) > _KEPT_STATES:
                self._states.popitem(last=False)

    def _fetch_context(self, payload: SegmentPayload, key: str, path: Path) -> Path | None:
        try:
            self._input.get_file(key, path)
        except NotFoundError:
            log.warning("job_id=%s segment_index=%d previous segment %s is gone; "
                        "this seam is not smoothed", payload.job_id, payload.segment_index, key)
            return None
        return path
