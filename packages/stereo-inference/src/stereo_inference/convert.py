"""``convert_file``: one 2D video (a segment) in, one stereo video out."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from shared_types.conversion import ConversionResult, EngineRuntime
from shared_types.models import Container, ConversionParams, DepthModel, OutputMode
from shared_types.output_guard import is_same_file
from stereo_media.clock_jumps import continuous_source
from stereo_media.errors import (
    FfmpegDiskFullError,
    FfmpegFailedError,
    FfmpegTimeoutError,
    MediaError,
)
from stereo_media.ffmpeg import ffmpeg_path, find_soon
from stereo_media.ffmpeg_runner import FfmpegRunner
from stereo_media.stream_mux import container_of
from stereo_models.depth_models import needs_weights

from stereo_inference import nvdec
from stereo_inference import output_layout as layout
from stereo_inference.arrays import device_type
from stereo_inference.comfort_report import path_for as comfort_path
from stereo_inference.comfort_report import write_report
from stereo_inference.deadline import Deadline, DeadlinePolicy
from stereo_inference.decode import FrameReader
from stereo_inference.depth import ensure_installed, input_interpolation, load_estimator
from stereo_inference.depth_state import resume, snapshot
from stereo_inference.device_frames import pinned_empty
from stereo_inference.encode import StereoEncoder
from stereo_inference.errors import (
    EngineDiskFullError,
    EngineTransientError,
    InvalidInputError,
    InvalidRequestError,
)
from stereo_inference.formats import decoded_size, eye_size, output_size, parse_mode
from stereo_inference.lookahead import with_lookahead
from stereo_inference.mux import mux_output, nothing_to_keep, source_streams
from stereo_inference.runtime import (
    batch_frames,
    compute_threads,
    cpu_threads,
    partial_path,
    renderers,
    resolve_device,
    reuse_freed_memory,
)
from stereo_inference.seams import context_state
from stereo_inference.stage_clock import StageClock
from stereo_inference.stages import run_stages
from stereo_inference.synthesis import StereoRenderer
from stereo_inference.tonemap import dynamic_range_for, output_bit_depth, sdr_tone_mapper
from stereo_inference.video_info import VideoInfo, probe_video

if TYPE_CHECKING:
    from stereo_inference.temporal import Normalizer

log = logging.getLogger(__name__)
Progress = Callable[[int, int | None], None]


DEFAULT_RUNTIME = EngineRuntime()  # every default: the engine as a plain call runs it


def convert_file(
    input_path: Path,
    output_path: Path,
    *,
    mode: OutputMode | str,
    params: ConversionParams = ConversionParams(),  # noqa: B008 (immutable in practice)
    progress: Progress | None = None,
    depth_state: dict | None = None,
    context_path: Path | None = None,
    container: Container | str | None = None,
    depth_video: Path | None = None,
    start_at_zero: bool = False,
    deadline: DeadlinePolicy | None = None,
    runtime: EngineRuntime = DEFAULT_RUNTIME,
) -> ConversionResult:
    """Convert ``input_path`` into a stereo video at ``output_path`` in ``mode``.

    ``runtime`` (``shared_types.conversion.EngineRuntime``) is how this process
    runs the engine, the same for every file: ``models_dir``, ``ffmpeg``,
    ``device``, ``threads``, ``cores``, ``iw3_low_vram``, ``auto_download``,
    ``hub_endpoint``, ``depth_stride``, ``timeout_s``; the rest is this file's.

    The output appears atomically (written to a partial name, then renamed).
    It keeps every audio/subtitle stream, chapter and tag of the input
    (``stereo_inference.mux``, run with ``ffmpeg``); ``container`` (mp4/mkv)
    defaults to what ``output_path``'s suffix says, else mp4. A rotated input
    (phone video) comes out upright with no display rotation.
    ``device`` defaults to CUDA when available; ``threads`` sets torch/OpenCV CPU
    threads for the call (default ``runtime.cpu_threads``: half of ``cores``,
    all of them for a learned depth model; restored afterwards).
    ``cores`` is how many CPU cores the conversion may use (default: all): its
    decoder and encoder get that many threads (a machine running one
    conversion per core gives each ``cores=1``, so they do not fight).
    ``context_path`` (the previous segment's input), when given and
    ``depth_state`` is None, seeds depth normalisation from its tail so the
    seam does not jump (``stereo_inference.seams``); an unreadable context is
    logged and ignored. A depth model that is not installed is downloaded first
    when ``auto_download`` allows it (from ``hub_endpoint``, default the hub).
    ``depth_video`` (a depth video as ``stereo-inference depth`` writes it,
    perhaps edited) replaces depth estimation: its frames are used as they are
    (``stereo_inference.depth.imported``); it must have one frame per source frame.
    ``depth_stride`` n runs a learned depth model on every n-th frame only, the
    frames between following the optical flow (n times cheaper; 1: every frame).
    Every frame keeps its source timestamp, so a segment stays where it lies on
    the source's timeline; ``start_at_zero`` (a whole file, as the CLI converts)
    moves them all so the output begins at 0, however late the source's clock
    began (a broadcast recording's may be hours in).
    ``deadline`` (default: :class:`DeadlinePolicy` capped at ``timeout_s``) sets
    the wall-clock limit of the whole conversion from its frame count
    (``stereo_inference.deadline``), enforced inside: every path stops past it.
    Raises InvalidInputError (not a video, unknown mode), ModelNotInstalledError,
    EngineTransientError (encoder or iw3 failure), EngineTimeoutError (past the
    deadline).
    """
    models_dir, ffmpeg, device, threads = (runtime.models_dir, runtime.ffmpeg, runtime.device,
                                           runtime.threads)
    cores, iw3_low_vram, timeout_s = runtime.cores, runtime.iw3_low_vram, runtime.timeout_s
    auto_download, hub_endpoint = runtime.auto_download, runtime.hub_endpoint
    depth_stride = runtime.depth_stride
    started = time.perf_counter()
    reuse_freed_memory()  # per-frame buffers, reused instead of page-faulted in anew
    find_soon(ffmpeg)  # the final mux runs it: found while the frames convert
    input_path, output_path = Path(input_path), Path(output_path)
    if is_same_file(input_path, output_path):  # the rename at the end would replace it
        raise InvalidRequestError(f"the output {output_path} is the input file; "
                                  "refusing to write over the source")
    with _on_one_timeline(input_path, output_path, ffmpeg, timeout_s) as input_path:
        mode = parse_mode(mode)
        layout.check_layout(mode, params)
        container = Container(container) if container else container_of(output_path)
        info = probe_video(input_path)
        policy = deadline or DeadlinePolicy(cap_s=timeout_s)
        budget = Deadline(policy.limit_s(policy.frames_of(info)))
        if depth_video is not None:
            return _convert_with_depth_video(_Conversion(
                input_path=input_path, output_path=output_path, mode=mode, params=params,
                info=info, device=resolve_device(device), progress=progress, depth_state=None,
                models_dir=None, ffmpeg=ffmpeg, deadline=budget, started=started,
                container=container, cores=cores, start_at_zero=start_at_zero,
            ), Path(depth_video), threads or cpu_threads(cores))
        if params.depth_model is DepthModel.IW3:
            from stereo_inference.iw3 import convert_with_iw3  # imported only when used

            return convert_with_iw3(
                input_path, output_path, mode=mode, params=params, started=started,
                ffmpeg=ffmpeg or ffmpeg_path(), container=container, low_vram=iw3_low_vram,
                timeout_s=budget.left(),
            )
        ensure_installed(params.depth_model, models_dir, auto_download=auto_download,
                         hub_endpoint=hub_endpoint)
        dev = resolve_device(device)
        # the weight-free depth on a CPU runs on numpy and OpenCV alone: no torch import
        learned = needs_weights(str(params.depth_model))
        uses_torch = device_type(dev) != "cpu" or learned
        threads = threads or cpu_threads(cores, learned_model=learned)
        with compute_threads(dev, threads, torch_too=uses_torch):
            if context_path is not None and depth_state is None:
                depth_state = context_state(Path(context_path), params, models_dir=models_dir,
                                            device=dev, stride=depth_stride)
            return _convert(_Conversion(
                input_path=input_path, output_path=output_path, mode=mode, params=params,
                info=info, device=dev, progress=progress, depth_state=depth_state,
                models_dir=models_dir, ffmpeg=ffmpeg, deadline=budget, started=started,
                container=container, cores=cores, depth_stride=depth_stride,
                start_at_zero=start_at_zero,
            ))


def _convert_with_depth_video(job: _Conversion, depth_video: Path,
                              threads: int) -> ConversionResult:
    """``convert_file`` with depth read from ``depth_video`` (checked before anything runs)."""
    from stereo_inference.depth.imported import DepthVideo

    estimator = DepthVideo(depth_video, job.info, job.input_path)
    try:
        with compute_threads(job.device, threads, torch_too=device_type(job.device) != "cpu"):
            return _convert(job, estimator=estimator)
    finally:
        estimator.close()


def _say_if_cut_short(input_path: Path, info: VideoInfo, seconds: float) -> None:
    """Warn when the picture read ends well before the duration the input's
    index lists (a download cut off, a damaged file): the output holds what
    could be read, and says so instead of passing for the whole film."""
    listed = info.indexed_s
    if listed and seconds < listed - max(1.0, 0.05 * listed):
        log.warning("%s ends after %.1f s of the %.1f s its index lists (the file is "
                    "incomplete or damaged): the 3D video holds what could be read",
                    input_path.name, seconds, listed)


@contextmanager
def _on_one_timeline(input_path: Path, output_path: Path, ffmpeg: str | None,
                     timeout_s: float) -> Iterator[Path]:
    """``input_path``, or a copy of it on one timeline when its clock jumps
    (``stereo_media.clock_jumps``: joined recordings) or it has none (a raw
    H.264/HEVC stream: ``stereo_media.raw_video``), written beside the output
    and removed when the conversion ends. Raises InvalidInputError when the
    copy fails."""
    def run(args):
        runner = FfmpegRunner(ffmpeg or ffmpeg_path(), timeout_s=timeout_s)
        try:
            runner.run(args, what="copying the input onto one timeline")
        except FfmpegDiskFullError as exc:
            raise EngineDiskFullError(str(exc)) from exc
        except FfmpegFailedError as exc:
            raise InvalidInputError("copying the input onto one timeline failed: "
                                    f"{exc.stderr[-500:].strip()}") from exc
        except FfmpegTimeoutError as exc:
            raise EngineTransientError("copying the input onto one timeline took longer "
                                       f"than {timeout_s:g} s") from exc
        except MediaError as exc:  # killed by a signal
            raise EngineTransientError(str(exc)) from exc

    source = continuous_source(input_path, output_path.parent, run,
                               stem=f".{output_path.stem}.continuous")
    if source != input_path:
        log.info("%s: not on one timeline; converting a copy that is", input_path.name)
    try:
        yield source
    finally:
        if source != input_path:
            source.unlink(missing_ok=True)


@dataclass(frozen=True)
class _Conversion:
    """One frame-estimator conversion, everything resolved (paths, mode, device)."""

    input_path: Path
    output_path: Path
    mode: OutputMode
    params: ConversionParams
    info: VideoInfo
    device: str
    progress: Progress | None
    depth_state: dict | None
    models_dir: Path | None
    ffmpeg: str | None  # None: found when first needed (a video-only MP4 never needs it)
    deadline: Deadline  # the whole conversion's; each ffmpeg step gets what is left
    started: float  # perf_counter() when the call began
    container: Container = Container.MP4
    cores: int | None = None  # decoder and encoder threads (None: FFmpeg's automatic count)
    depth_stride: int = 1  # a learned model runs on every n-th frame
    start_at_zero: bool = False  # a whole file: the output begins at 0 (see convert_file)

    def ffmpeg_binary(self) -> str:
        """The ffmpeg to run: the one given, else found now (FfmpegNotFoundError)."""
        return self.ffmpeg or ffmpeg_path()


def _convert(job: _Conversion, estimator=None) -> ConversionResult:
    """The frame pipeline; ``estimator``, when given, replaces the params' depth
    model and its depth is used without renormalisation (imported depth)."""
    input_path, output_path, mode, params, info, dev = (
        job.input_path, job.output_path, job.mode, job.params, job.info, job.device)
    if estimator is None:
        estimator = load_estimator(params.depth_model, models_dir=job.models_dir, device=dev,
                                   stride=job.depth_stride)
        normalizer: Normalizer = resume(estimator, job.depth_state)
    else:
        from stereo_inference.depth.imported import AsIs

        normalizer = AsIs()
    # the picture as displayed: a quarter-turned (portrait phone) source swaps sides
    width, height = info.width, info.height
    if info.rotation % 180:
        width, height = height, width
    ew, eh = eye_size(mode, width, height)
    dynamic_range = dynamic_range_for(mode, params.dynamic_range)
    tone = sdr_tone_mapper(info.color, info.hdr, dynamic_range)
    color = tone.output_color if tone else info.color
    renderer = layout.renderer_class(mode)(
        mode, params, estimator, normalizer, dev, eye_size=(ew, eh),
        bit_depth=output_bit_depth(info.hdr.bit_depth, dynamic_range), color=color,
        frame_s=1.0 / info.fps if info.fps else 1 / 24,
        shot_state=(job.depth_state or {}).get("shots"))
    on_gpu = device_type(dev) == "cuda"
    on_nvdec = nvdec.usable(dev, codec=info.codec, pix_fmt=info.pix_fmt,
                            eye_format=renderer.eye_format, filtered=tone is not None
                            ) and not getattr(renderer, "needs_host_frames", False)
    # Frames are decoded at full size: the OpenCV path halves half-layout eyes
    # itself while warping, a GPU after the upload (no scaler pass either way).
    # A GPU also makes the model's input from the uploaded frames.
    out_w, out_h = output_size(mode, width, height)
    if decoded_size(width, height) != (width, height):  # said, not silently changed
        log.warning("%s is %dx%d; 4:2:0 video has no odd sizes, so the output is %dx%d",
                    input_path.name, width, height, out_w, out_h)
    clock = StageClock()
    reader = FrameReader(
        input_path,
        eye_size=decoded_size(width, height),
        depth_size=None if on_gpu else estimator.input_size(width, height),
        depth_interpolation=input_interpolation(params.depth_model),
        eye_format=renderer.eye_format,
        batch_size=batch_frames(dev, info.width * info.height),
        rotation=info.rotation,
        eye_filter=tone,
        threads=job.cores,
        clock=clock,
        allocate=pinned_empty if on_gpu else np.empty,
        nvdec=nvdec.DevicePlanes(dev) if on_nvdec else None,
    )
    partial = partial_path(output_path)
    video_only = partial.with_name(partial.stem + ".video.mp4")
    # a source with nothing beside its picture (a video-only segment) needs no mux pass
    found = source_streams(input_path)
    direct = (job.container is Container.MP4
              and nothing_to_keep(found, start_at_zero=job.start_at_zero))
    total = info.frames or (round(info.duration_s * info.fps) or None)
    encoder = None
    try:
        first = next(iter_batches := iter(reader), None)
        if first is None:
            raise InvalidInputError(f"{input_path.name} has no decodable video frames")
        if first.time_base is None:
            raise InvalidInputError(f"{input_path.name}: its video stream has no time base")
        sar = info.sample_aspect
        if sar and info.rotation % 180:
            sar = (sar[1], sar[0])
        hdr = info.hdr if renderer.bit_depth > 8 else None
        encoder = StereoEncoder(
            partial if direct else video_only, size=(out_w, out_h),
            fps=layout.output_fps(params, info.fps),
            time_base=first.time_base, crf=params.crf, preset=params.preset,
            sample_aspect=sar, packing=layout.packing(mode, params),
            color=color, hdr=hdr, encoder=layout.encoder_choice(params, hdr),
            use_nvenc=on_gpu, threads=job.cores, faststart=direct,
        )
        frames = run_stages(
            with_lookahead(job.deadline.batches(
                layout.capped(_chain(first, iter_batches), params, first.time_base)), estimator),
            layout.render_step(mode, params, renderer.render, (ew, eh), renderer.bit_depth),
            encoder, renderer.eye_format,
            total=layout.frames_kept(total, params, info.fps), progress=job.progress,
            estimate=renderer.estimate, clock=clock,
            renderers=renderers(dev, job.cores),
            finish=_subtitle_burner(job, renderer, (ew, eh), color[1] if color else None),
        )
        with clock.stage("encode"):  # x264's last frames
            encoder.close()
        _say_if_cut_short(input_path, info, encoder.seconds)
        encoder = None
        with clock.stage("mux"):
            # the boxes first: an MKV takes them over from the video's MP4
            layout.mark_file(partial if direct else video_only, mode, params)
            if not direct:
                try:
                    mux_output(job.ffmpeg_binary(), video_only, input_path, partial,
                               container=job.container, packing=layout.packing(mode, params),
                               timeout_s=job.deadline.left(),
                               start_at_zero=job.start_at_zero, found=found)
                except EngineTransientError:  # cut at the time left: a timeout, not a fault
                    job.deadline.check("adding the audio and subtitles")
                    raise
                if job.container is Container.MP4:
                    layout.mark_file(partial, mode, params)
        report = renderer.planner.report() if renderer.planner else None
        if report is not None:  # written first: whoever sees the video finds its report
            write_report(report, comfort_path(output_path))
        os.replace(partial, output_path)
    except BaseException:
        if encoder is not None:
            encoder.abort()
        reader.close()
        partial.unlink(missing_ok=True)
        raise
    finally:
        video_only.unlink(missing_ok=True)
    elapsed = time.perf_counter() - job.started
    return ConversionResult(
        frames=frames, duration_s=info.duration_s, width=out_w, height=out_h,
        elapsed_s=elapsed, fps=frames / elapsed if elapsed > 0 else 0.0,
        depth_model=estimator.name, depth_state=_with_shots(snapshot(estimator, normalizer),
                                                            renderer),
        stages=clock.report(),
        comfort_report=comfort_path(output_path) if report is not None else None,
    )


def _with_shots(state: dict | None, renderer: StereoRenderer) -> dict | None:
    """The depth state handed to the next segment, with the shot planner's
    (screen plane, strength, window, cut check) so the shot goes on there."""
    shots = renderer.planner.state() if renderer.planner else None
    if state is None or shots is None:
        return state
    return {**state, "shots": shots}


def _subtitle_burner(job: _Conversion, renderer: StereoRenderer, eye: tuple[int, int],
                     transfer: int | None):
    """The step that burns the text subtitles into rendered frames in 3D (at the
    levels of the output's bit depth and ``transfer``), or None when not asked
    for or there are none. It keeps state from one batch to the next (a cue's
    depth only grows), so ``run_stages`` runs it in order, not in the renderers."""
    if not job.params.subtitles_3d:
        return None
    from stereo_inference.subtitles3d import SubtitleBurner, read_text_cues, text_levels

    cues = read_text_cues(job.ffmpeg_binary(), job.input_path, job.deadline.left())
    if not cues:
        log.info("no text subtitles in %s to burn in", job.input_path.name)
        return None
    levels = text_levels(renderer.bit_depth, transfer)
    burner = SubtitleBurner(cues, job.mode, eye, levels)

    def burn(frames, batch):
        shaping = renderer.shaping
        assert shaping is not None  # planned with the first batch, before any frame is rendered
        return burner(frames, batch, batch.depth, shaping)
    return burn


def _chain(first, rest):
    yield first
    yield from rest
