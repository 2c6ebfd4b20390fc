"""``convert_file``: one 2D video (a segment) in, one stereo video out."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import torch
from pydantic import BaseModel
from shared_types.ffmpeg import ffmpeg_path
from shared_types.models import ConversionParams, DepthModel, OutputMode

from stereo_inference.decode import FrameReader
from stereo_inference.depth import load_estimator
from stereo_inference.encode import StereoEncoder, reencode_audio
from stereo_inference.errors import InvalidInputError
from stereo_inference.formats import eye_size, output_size, parse_mode
from stereo_inference.pipeline import run_stages
from stereo_inference.probe import probe_video
from stereo_inference.seams import context_state
from stereo_inference.synthesis import StereoRenderer
from stereo_inference.temporal import TemporalNormalizer

log = logging.getLogger(__name__)
Progress = Callable[[int, int | None], None]
BATCH_PIXELS = 4_000_000  # frames decoded and depth-estimated together


class ConversionResult(BaseModel):
    frames: int
    duration_s: float
    width: int  # of the output
    height: int
    elapsed_s: float
    fps: float  # frames converted per second of wall time
    depth_model: str
    depth_state: dict | None = None  # pass to the next consecutive segment


def resolve_device(device: str | None) -> torch.device:
    """``device``, or CUDA when available, else CPU."""
    if device:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def cpu_threads() -> int:
    """Torch threads for CPU work: half the cores, since decoding and x264 run
    beside it (more makes OpenMP threads spin against them)."""
    return max(1, (os.cpu_count() or 2) // 2)


@contextmanager
def compute_threads(device: torch.device, threads: int | None):
    """Run with ``threads`` torch and OpenCV CPU threads (default ``cpu_threads()``),
    then restore both (they are process-wide settings)."""
    if device.type != "cpu":
        yield
        return
    import cv2

    previous = torch.get_num_threads(), cv2.getNumThreads()
    n = threads or cpu_threads()
    torch.set_num_threads(n)
    cv2.setNumThreads(n)
    try:
        yield
    finally:
        torch.set_num_threads(previous[0])
        cv2.setNumThreads(previous[1])


def partial_path(output_path: Path) -> Path:
    """Where a conversion writes until it is complete (same folder, same suffix)."""
    return output_path.with_name(f".{output_path.stem}.partial{output_path.suffix or '.mp4'}")


def convert_file(
    input_path: Path,
    output_path: Path,
    *,
    mode: OutputMode | str,
    params: ConversionParams = ConversionParams(),  # noqa: B008 (immutable in practice)
    progress: Progress | None = None,
    depth_state: dict | None = None,
    models_dir: Path | None = None,
    ffmpeg: str | None = None,
    device: str | None = None,
    iw3_low_vram: bool = False,
    timeout_s: float = 3600,
    threads: int | None = None,
    context_path: Path | None = None,
) -> ConversionResult:
    """Convert ``input_path`` into a stereo video at ``output_path`` in ``mode``.

    The output appears atomically (written to a partial name, then renamed).
    ``ffmpeg`` is used only to re-encode audio the container cannot hold.
    ``device`` defaults to CUDA when available; ``threads`` sets torch/OpenCV CPU
    threads for the call (default half the cores, restored afterwards).
    ``context_path`` (the previous segment's input), when given and
    ``depth_state`` is None, seeds depth normalisation from its tail so the
    seam does not jump (``stereo_inference.seams``); an unreadable context is
    logged and ignored.
    Raises InvalidInputError (not a video, unknown mode), ModelNotInstalledError,
    EngineTransientError (encoder or iw3 failure).
    """
    started = time.perf_counter()
    input_path, output_path = Path(input_path), Path(output_path)
    mode = parse_mode(mode)
    info = probe_video(input_path)
    ffmpeg = ffmpeg or ffmpeg_path()
    if params.depth_model is DepthModel.IW3:
        from stereo_inference.iw3 import convert_with_iw3

        return convert_with_iw3(
            input_path, output_path, mode=mode, params=params, started=started,
            low_vram=iw3_low_vram, timeout_s=timeout_s,
        )
    dev = resolve_device(device)
    with compute_threads(dev, threads):
        if context_path is not None and depth_state is None:
            depth_state = context_state(Path(context_path), params, models_dir=models_dir,
                                        device=dev)
        return _convert(input_path, output_path, mode, params, info, dev, progress,
                        depth_state, models_dir, ffmpeg, timeout_s, started)


def _convert(input_path, output_path, mode, params, info, dev, progress, depth_state,
             models_dir, ffmpeg, timeout_s, started) -> ConversionResult:
    estimator = load_estimator(params.depth_model, models_dir=models_dir, device=dev)
    normalizer = TemporalNormalizer(estimator.name, depth_state)
    ew, eh = eye_size(mode, info.width, info.height)
    renderer = StereoRenderer(mode, params, estimator, normalizer, dev, eye_size=(ew, eh))
    # The OpenCV path halves half-layout eyes itself while warping (no scaler pass).
    decode_size = output_size(OutputMode.ANAGLYPH, info.width, info.height)
    if not renderer.use_opencv:
        decode_size = (ew, eh)
    out_w, out_h = output_size(mode, info.width, info.height)
    reader = FrameReader(
        input_path,
        eye_size=decode_size,
        depth_size=estimator.input_size(info.width, info.height),
        eye_format=renderer.eye_format,
        batch_size=max(1, min(16, BATCH_PIXELS // (info.width * info.height))),
    )
    partial = partial_path(output_path)
    total = info.frames or (round(info.duration_s * info.fps) or None)
    encoder = None
    try:
        first = next(iter_batches := iter(reader), None)
        if first is None:
            raise InvalidInputError(f"{input_path.name} has no decodable video frames")
        encoder = StereoEncoder(
            partial, source=input_path, size=(out_w, out_h), fps=info.fps,
            time_base=first.time_base, crf=params.crf, preset=params.preset,
            rotation=info.rotation, sample_aspect=info.sample_aspect,
            use_nvenc=dev.type == "cuda",
        )
        frames = run_stages(
            _chain(first, iter_batches), renderer.render, encoder, renderer.eye_format,
            total=total, progress=progress,
        )
        encoder.close()
        skipped, encoder = encoder.skipped_audio, None
        if skipped:
            log.info("re-encoding audio (%s) to AAC", ", ".join(skipped))
            remuxed = partial.with_name(partial.stem + ".audio" + partial.suffix)
            reencode_audio(ffmpeg, partial, input_path, remuxed, timeout_s)
            os.replace(remuxed, partial)
        os.replace(partial, output_path)
    except BaseException:
        if encoder is not None:
            encoder.abort()
        reader.close()
        partial.unlink(missing_ok=True)
        raise
    elapsed = time.perf_counter() - started
    return ConversionResult(
        frames=frames, duration_s=info.duration_s, width=out_w, height=out_h,
        elapsed_s=elapsed, fps=frames / elapsed if elapsed > 0 else 0.0,
        depth_model=estimator.name, depth_state=normalizer.state(),
    )


def _chain(first, rest):
    yield first
    yield from rest
