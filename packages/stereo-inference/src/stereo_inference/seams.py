"""Seamless segments: start a segment's depth normalisation where the video was.

Segments of one video are converted in parallel, so segment i cannot wait for
segment i-1's returned ``depth_state``. Instead the state is rebuilt from the
tail of segment i-1's *input*: its last frames go through the same estimator
and a fresh TemporalNormalizer, whose state then seeds segment i. The
normaliser forgets with a decay of 0.95 per frame and the weight-free
estimator holds its depth with 0.93, so two seconds of frames reach ~90 % of
the state a sequential run would have had at that point.
"""

from __future__ import annotations

import logging
from collections import deque
from pathlib import Path

import av
import numpy as np
from shared_types.models import ConversionParams, DepthModel
from stereo_media.demuxers import av_options

from stereo_inference.arrays import device_type, rgb_frames
from stereo_inference.depth import estimate_in_batches, input_interpolation, load_estimator
from stereo_inference.depth_state import snapshot
from stereo_inference.errors import InvalidInputError
from stereo_inference.held_frames import held
from stereo_inference.readable_frames import ReadableFrames
from stereo_inference.runtime import resolve_device
from stereo_inference.scaler import Scaler
from stereo_inference.shot_plan import warmed_state
from stereo_inference.temporal import TemporalNormalizer
from stereo_inference.video_info import probe_video

log = logging.getLogger(__name__)

TAIL_FRAMES = 48  # ~2 s: the normaliser (decay 0.95) and heuristic (0.93) forget ~90 %


def warm_depth_state(
    previous_segment: Path,
    params: ConversionParams,
    *,
    tail_frames: int = TAIL_FRAMES,
    models_dir: Path | None = None,
    device=None,
    stride: int = 1,
) -> dict | None:
    """The ``depth_state`` the engine would hold after the last ``tail_frames``
    frames of ``previous_segment`` (pass it as ``convert_file(depth_state=...)``
    for the next segment); None for iw3, which keeps no state, or a file with
    no frames. ``device`` defaults like ``convert_file``'s; a learned model
    runs on every ``stride``-th frame, as the conversion's ``depth_stride``
    has it (on a CPU, 48 model runs would cost a minute a seam).

    Raises InvalidInputError for a missing or unreadable file and
    ModelNotInstalledError when the depth model's weights are not installed.
    """
    if params.depth_model is DepthModel.IW3:
        return None
    previous_segment = Path(previous_segment)
    dev = resolve_device(device)
    info = probe_video(previous_segment)
    estimator = load_estimator(params.depth_model, models_dir=models_dir, device=dev,
                               stride=stride)
    tail = _tail_frames(previous_segment, estimator.input_size(info.width, info.height),
                        max(1, tail_frames), info.fps, input_interpolation(params.depth_model))
    if tail is None:
        return None
    normalizer = TemporalNormalizer(estimator.name)
    tail = tail[~held(tail, None)]  # as the conversion does: repeats move no state
    rgb = rgb_frames(tail, None if device_type(dev) == "cpu" else dev)  # numpy on a CPU
    depth = normalizer.normalize(estimate_in_batches(estimator, rgb), rgb)
    state = snapshot(estimator, normalizer)
    shots = warmed_state(params, info.width, 1 / (info.fps or 24), depth)
    if state is not None and shots is not None:
        state["shots"] = shots  # the shot goes on too (``shot_plan``)
    return state


def context_state(
    context_path: Path,
    params: ConversionParams,
    *,
    models_dir: Path | None,
    device,
    stride: int = 1,
) -> dict | None:
    """``warm_depth_state`` of a context segment, or None (logged) when the context
    cannot be read: a bad context only costs the seam its smoothing, never the
    conversion. Raises ModelNotInstalledError like ``warm_depth_state``."""
    try:
        state = warm_depth_state(context_path, params, models_dir=models_dir, device=device,
                                 stride=stride)
    except InvalidInputError as exc:
        log.warning("context %s unusable, converting without it: %s", context_path.name, exc)
        return None
    log.info("depth state warmed on the tail of context %s", context_path.name)
    return state


def _tail_frames(path: Path, size: tuple[int, int], count: int, fps: float,
                 interpolation: str) -> np.ndarray | None:
    """The last ``count`` frames as (N,h,w,3) uint8 at ``size``, scaled like the
    engine's reader scales its depth input; decoding starts at the keyframe at
    or before the first of them, not at the start of the file."""
    w, h = size
    try:
        with av.open(str(path), options=av_options()) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            first = _tail_start(container, stream, count, fps)
            if first is not None:
                container.seek(first, stream=stream)  # backward: the keyframe at or before
            frames: deque = deque(maxlen=count)
            frames.extend(ReadableFrames(container, stream, path.name))
            if not frames:
                return None
            scaler = Scaler()
            return np.stack([scaler.array(f, width=w, height=h, format="rgb24",
                                          interpolation=interpolation) for f in frames])
    except av.FFmpegError as exc:
        raise InvalidInputError(f"cannot decode {path.name}: {exc}") from exc


def _tail_start(container, stream, count: int, fps: float) -> int | None:
    """The timestamp (``stream``'s time base) just after where the last ``count``
    frames begin, or None where that is the file's start or is not known.

    A segment keeps the source's timestamps (media-worker cuts without
    resetting them): segment k starts k segments in, so the tail is counted
    back from its own end, start time plus duration. Half a frame past the
    first tail frame's timestamp, so that a tail beginning on a keyframe is
    decoded from that keyframe, not the one before it.
    """
    tb = stream.time_base
    if not tb:
        return None
    duration = stream.duration or (container.duration or 0) / av.time_base / tb
    if not duration:
        return None
    start = stream.start_time or 0
    first = start + duration - (count - 0.5) / max(fps, 1.0) / tb
    return int(first) if first > start else None
