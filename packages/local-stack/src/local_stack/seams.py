"""Seamless segments: start each segment's depth normalisation where the video was.

Segments are converted in parallel, so segment i cannot wait for segment i-1's
``depth_state``. Instead it rebuilds that state from the tail of segment i-1's
*input* (already in the input bucket under its canonical key): the last frames
go through the same estimator and a fresh TemporalNormalizer, whose state then
seeds segment i. The normaliser forgets with a decay of ~0.9 per frame, so a
second of frames reaches the state a sequential run would have had.

Built on the engine's public pieces (probe, FrameReader, load_estimator,
TemporalNormalizer); this belongs in stereo_inference as a ``warm_depth_state``.
"""

from __future__ import annotations

import logging
import tempfile
from collections import deque
from functools import partial
from pathlib import Path

from shared_types.errors import NotFoundError
from shared_types.keys import segment_key
from shared_types.models import ConversionParams, DepthModel, SegmentPayload
from shared_types.ports import ObjectStorage

log = logging.getLogger(__name__)

TAIL_FRAMES = 24


def warm_depth_state(
    previous_segment: Path,
    params: ConversionParams,
    *,
    tail_frames: int = TAIL_FRAMES,
    models_dir: Path | None = None,
) -> dict | None:
    """The engine's depth_state after the last ``tail_frames`` frames of
    ``previous_segment``; None for iw3 (which keeps no state).

    Raises the engine's InvalidInputError for an unreadable file and
    ModelNotInstalledError for a missing model.
    """
    if params.depth_model is DepthModel.IW3:
        return None
    import torch
    from stereo_inference.depth import load_estimator
    from stereo_inference.probe import probe_video
    from stereo_inference.temporal import TemporalNormalizer

    info = probe_video(previous_segment)
    estimator = load_estimator(params.depth_model, models_dir=models_dir,
                               device=torch.device("cpu"))
    tail = _tail_frames(previous_segment, estimator.input_size(info.width, info.height),
                        tail_frames, info.fps)
    if tail is None:
        return None
    normalizer = TemporalNormalizer(estimator.name)
    with torch.inference_mode():
        rgb = torch.from_numpy(tail).permute(0, 3, 1, 2).float().div_(255)
        normalizer.normalize(estimator.estimate(rgb), rgb)
    return normalizer.state()


def _tail_frames(path: Path, size: tuple[int, int], count: int, fps: float):
    """The last ``count`` frames as (N,h,w,3) uint8 at ``size``, converted like the
    engine's reader does; decoding starts at a keyframe shortly before them."""
    import av
    import numpy as np

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        end = stream.duration or (container.duration or 0) / av.time_base / stream.time_base
        back = (count / max(fps, 1.0) + 2.0) / stream.time_base
        if end and end > back:
            container.seek(int(end - back), stream=stream)
        frames: deque = deque(maxlen=count)
        frames.extend(container.decode(stream))
    if not frames:
        return None
    w, h = size
    return np.stack([f.to_ndarray(width=w, height=h, format="rgb24") for f in frames])


class SeamlessInference:
    """video-worker's in-process InferenceBackend, seeded with the previous
    segment's depth state so depth does not jump at segment boundaries."""

    def __init__(self, input_storage: ObjectStorage, output_storage: ObjectStorage, *,
                 models_dir: Path | None = None, ffmpeg: str | None = None,
                 work_dir: Path | None = None, tail_frames: int = TAIL_FRAMES) -> None:
        self._input, self._output = input_storage, output_storage
        self._models_dir, self._ffmpeg, self._work_dir = models_dir, ffmpeg, work_dir
        self._tail_frames = tail_frames

    def previous_state(self, payload: SegmentPayload, params: ConversionParams) -> dict | None:
        """Depth state for ``payload`` from its predecessor's tail (None for the
        first segment, or when the predecessor is gone: that seam is not smoothed)."""
        if payload.segment_index == 0 or params.depth_model is DepthModel.IW3:
            return None
        key = segment_key(payload.job_id, payload.segment_index - 1, payload.total_segments,
                          payload.mode)
        with tempfile.TemporaryDirectory(prefix="seam-", dir=self._work_dir) as tmp:
            local = Path(tmp) / "previous.mp4"
            try:
                self._input.get_file(key, local)
            except NotFoundError:
                log.warning("job_id=%s segment_index=%d previous segment gone; seam not smoothed",
                            payload.job_id, payload.segment_index)
                return None
            return warm_depth_state(local, params, tail_frames=self._tail_frames,
                                    models_dir=self._models_dir)

    def convert(self, payload: SegmentPayload, output_key: str, params: ConversionParams):
        """Convert like video-worker's LocalInferenceBackend, with the warmed state.
        Raises what that backend and the engine raise."""
        from stereo_inference import convert_file
        from video_worker.local_backend import LocalInferenceBackend

        state = self.previous_state(payload, params)
        if self._work_dir is not None:
            self._work_dir.mkdir(parents=True, exist_ok=True)
        inner = LocalInferenceBackend(
            self._input, self._output, convert_file=partial(convert_file, depth_state=state),
            models_dir=self._models_dir, ffmpeg=self._ffmpeg, work_dir=self._work_dir)
        return inner.convert(payload, output_key, params)
