"""``stereo-inference depth``: the engine's depth of every frame as a lossless video.

The depth the engine would render with (estimator, then temporal
normalisation, so exactly what a conversion sees) is written frame for frame as
16-bit grey (FFV1 ``gray16le`` in Matroska) at the source's coded size:
65535 is the nearest depth of that frame's range, 0 the farthest. For people
who inspect or edit depth, and for measuring it (``bench/depth_quality.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import av
import numpy as np
import torch
import torch.nn.functional as F
from shared_types.models import DepthModel
from stereo_media.demuxers import av_options
from stereo_media.frame_rate import stream_rate
from stereo_models.depth_models import needs_weights

from stereo_inference.deadline import Deadline, DeadlinePolicy
from stereo_inference.depth import (
    ensure_installed,
    estimate_in_batches,
    input_interpolation,
    load_estimator,
)
from stereo_inference.depth_state import resume
from stereo_inference.errors import EngineTransientError, InvalidInputError
from stereo_inference.runtime import compute_threads, cpu_threads, partial_path, resolve_device
from stereo_inference.scaler import Scaler
from stereo_inference.video_info import probe_video

BATCH = 8


def export_depth(
    input_path: Path,
    output_path: Path,
    *,
    depth_model: DepthModel | str = DepthModel.HEURISTIC,
    models_dir: Path | None = None,
    device: str | None = None,
    auto_download: bool = False,
    hub_endpoint: str | None = None,
    progress: Callable[[int, int | None], None] | None = None,
    deadline: DeadlinePolicy | None = None,
) -> int:
    """Write the normalised depth of every frame of ``input_path`` to ``output_path``
    (MKV, FFV1 gray16le, 65535 = nearest); returns the number of frames.

    The output appears atomically. ``deadline`` (default: :class:`DeadlinePolicy`)
    bounds the whole export by the video's length, checked at every decoded frame.
    Raises InvalidInputError (not a video, iw3, which has no frame depth),
    ModelNotInstalledError, EngineTransientError, EngineTimeoutError.
    """
    input_path, output_path = Path(input_path), Path(output_path)
    if str(depth_model) == DepthModel.IW3:
        raise InvalidInputError("iw3 converts whole segments; choose a frame depth model")
    info = probe_video(input_path)
    budget = Deadline((deadline or DeadlinePolicy()).limit_s(info.frames))
    ensure_installed(depth_model, models_dir, auto_download=auto_download,
                     hub_endpoint=hub_endpoint)
    dev = resolve_device(device)
    partial = partial_path(output_path.with_suffix(".mkv"))
    try:
        with compute_threads(dev, cpu_threads(learned_model=needs_weights(str(depth_model)))):
            estimator = load_estimator(depth_model, models_dir=models_dir, device=dev)
            normalizer = resume(estimator, None)
            size = estimator.input_size(info.width, info.height)
            frames = _write(input_path, partial, (size, input_interpolation(depth_model)), info,
                            estimator, normalizer, progress, budget)
        os.replace(partial, output_path)
    except av.FFmpegError as exc:
        partial.unlink(missing_ok=True)
        raise EngineTransientError(f"writing depth of {input_path.name} failed: {exc}") from exc
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return frames


def _write(source: Path, target: Path, scaling, info, estimator, normalizer, progress,
           budget: Deadline) -> int:
    (w, h), interpolation = scaling
    done = 0
    with (av.open(str(source), options=av_options()) as src,
          av.open(str(target), "w", format="matroska") as out):
        stream = src.streams.video[0]
        stream.thread_type = "AUTO"
        depth_stream = out.add_stream("ffv1", rate=stream_rate(stream) or round(info.fps) or 25)
        depth_stream.width, depth_stream.height = info.width, info.height
        depth_stream.pix_fmt = "gray16le"
        depth_stream.time_base = stream.time_base
        pending: list[tuple[np.ndarray, int | None]] = []
        scaler = Scaler()

        def flush() -> None:
            nonlocal done
            rgb = torch.from_numpy(np.stack([f for f, _ in pending]))
            rgb = rgb.to(_device(estimator)).permute(0, 3, 1, 2).float().div_(255)
            depth = normalizer.normalize(estimate_in_batches(estimator, rgb), rgb)
            depth = F.interpolate(depth, size=(info.height, info.width), mode="bilinear",
                                  align_corners=False)
            levels = (depth[:, 0].clamp(0, 1) * 65535 + 0.5).to(torch.int32).cpu().numpy()
            for plane, (_, pts) in zip(levels.astype(np.uint16), pending, strict=True):
                frame = av.VideoFrame.from_ndarray(plane, format="gray16le")
                frame.pts, frame.time_base = pts, stream.time_base
                out.mux(depth_stream.encode(frame))
            done += len(pending)
            pending.clear()
            if progress:
                progress(done, info.frames)

        with torch.inference_mode():
            for frame in budget.batches(src.decode(stream), "writing depth"):
                pending.append((scaler.array(frame, width=w, height=h, format="rgb24",
                                             interpolation=interpolation), frame.pts))
                if len(pending) == BATCH:
                    flush()
            if pending:
                flush()
        out.mux(depth_stream.encode(None))
    if not done:
        raise InvalidInputError(f"{source.name} has no decodable video frames")
    return done


def _device(estimator) -> torch.device:
    """Where the estimator computes (its frames go there)."""
    return getattr(estimator, "device", torch.device("cpu"))
