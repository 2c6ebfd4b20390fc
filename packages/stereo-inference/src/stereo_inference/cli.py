"""``stereo-inference``: convert one file, export its depth, serve HTTP, manage models."""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from shared_types.comfort_cli import add_comfort_arguments, params_from_args
from shared_types.errors import StereoSpotError
from shared_types.fast_exit import exit_now
from shared_types.layout_options import add_layout_options, layout_params
from shared_types.malloc_arenas import use_one_malloc_arena
from shared_types.models import (
    ENCODER_PRESETS,
    Container,
    DepthModel,
    DynamicRange,
    OutputMode,
)
from shared_types.output_guard import check_output
from stereo_models.models_cli import add_models_parser, run_models_command

from stereo_inference.errors import EngineError
from stereo_inference.settings import InferenceSettings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stereo-inference", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    conv = sub.add_parser("convert", help="convert one 2D video into a stereo video")
    conv.add_argument("input", type=Path)
    conv.add_argument("output", type=Path)
    conv.add_argument("--mode", choices=[m.value for m in OutputMode], default="half-sbs")
    add_comfort_arguments(conv)
    conv.add_argument("--depth", choices=[m.value for m in DepthModel], default=None,
                      help="default: the best installed model, else heuristic")
    conv.add_argument("--depth-video", type=Path, default=None, metavar="FILE",
                      help="render with this depth instead of estimating it: a 16-bit grey "
                           "video as `stereo-inference depth` writes it (edited or not)")
    conv.add_argument("--depth-stride", type=int, default=None, metavar="N",
                      help="run a learned depth model on every N-th frame only, the frames "
                           "between following the motion (N times cheaper; default 1)")
    conv.add_argument("--container", choices=[c.value for c in Container], default=None,
                      help="output file format (default: from the output's suffix, else mp4)")
    conv.add_argument("--subtitles-3d", action="store_true",
                      help="burn the first text subtitle track into both views, in front")
    conv.add_argument("--dynamic-range", choices=[d.value for d in DynamicRange],
                      default="keep", help="keep HDR, or tone-map it to SDR (BT.709, 8-bit)")
    conv.add_argument("--crf", type=int, default=20,
                      help="constant quality on x264's 0..51 scale (lower is better)")
    conv.add_argument("--preset", choices=ENCODER_PRESETS, default="veryfast")
    add_layout_options(conv)
    conv.add_argument("--device", default=None, help="cuda or cpu (default: auto)")
    conv.add_argument("--overwrite", action="store_true",
                      help="replace an existing output (never the input itself)")
    conv.add_argument("--no-progress", action="store_true")
    conv.add_argument("--timings", action="store_true",
                      help="also print where the time went: busy and CPU seconds per stage")
    depth = sub.add_parser("depth", help="write the depth of every frame (16-bit grey FFV1 MKV)")
    depth.add_argument("input", type=Path)
    depth.add_argument("output", type=Path, help="an .mkv file; 65535 = nearest")
    depth.add_argument("--depth", choices=[m.value for m in DepthModel if m != DepthModel.IW3],
                       default=None, help="default: the best installed model, else heuristic")
    depth.add_argument("--device", default=None, help="cuda or cpu (default: auto)")
    depth.add_argument("--overwrite", action="store_true",
                       help="replace an existing output (never the input itself)")
    depth.add_argument("--no-progress", action="store_true")
    serve = sub.add_parser("serve", help="SageMaker-style HTTP server")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default: this machine only)")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--sagemaker", action="store_true",
                       help="inside a SageMaker endpoint: no shared secret (SageMaker's API "
                            "is the only way in); otherwise STEREO_SPOT_INFERENCE_SHARED_SECRET "
                            "is required")
    add_models_parser(sub)
    return parser


def main(argv: list[str] | None = None, *, has_gpu: Callable[[], bool] | None = None) -> int:
    """The ``stereo-inference`` command; returns its exit status. ``has_gpu``: whether
    the engine here has a GPU (default: asked of the engine, ``runtime.resolve_device``)."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        settings = InferenceSettings()  # an empty or short shared secret is refused here
        if args.command == "convert":
            if argv is None:  # this process's own command: what is loaded stays loaded
                gc.freeze()  # so no full collection walks it again mid-conversion (~0.02 s)
            code = _convert(args, settings, has_gpu)
            if argv is None:  # this process's own command: nothing is left to do
                exit_now(code)  # the output is written, renamed and closed
            return code
        if args.command == "serve":
            return _serve(args, settings)
        if args.command == "depth":
            return _depth(args, settings)
        return run_models_command(args, settings.models_dir, endpoint=settings.hub_endpoint)
    except (EngineError, StereoSpotError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _convert(args, settings: InferenceSettings, has_gpu: Callable[[], bool] | None) -> int:
    from stereo_media.ffmpeg import ffmpeg_path
    from stereo_media.ffmpeg_runner import FfmpegRunner
    from stereo_media.source_cut import source_span

    from stereo_inference.convert import convert_file
    from stereo_inference.progress_bar import progress_bar

    check_output(args.input, args.output, overwrite=args.overwrite)
    params = params_from_args(
        args, depth_model=args.depth or _default_depth(args, settings, has_gpu),
        crf=args.crf, preset=args.preset,
        subtitles_3d=args.subtitles_3d, dynamic_range=args.dynamic_range,
        **layout_params(args),
    )
    with (source_span(FfmpegRunner(ffmpeg_path(settings.ffmpeg),
                                   timeout_s=settings.segment_timeout_s), args.input,
                      Path(args.output).absolute().parent, start_s=args.start,
                      end_s=args.end) as source,
          progress_bar(enabled=not args.no_progress) as progress):
        result = convert_file(
            source, args.output, mode=args.mode, params=params, progress=progress,
            runtime=settings.engine_runtime(
                device=args.device or settings.device,
                depth_stride=args.depth_stride or settings.depth_stride),
            deadline=settings.deadline_policy(cap_s=None),  # a whole film: its length decides
            container=args.container, depth_video=args.depth_video,
            start_at_zero=True,  # a whole file, as a player expects it: from 0
        )
    print(
        f"wrote {args.output}: {result.frames} frames, {result.width}x{result.height}, "
        f"{result.fps:.1f} fps, depth {result.depth_model}"
    )
    if result.comfort_report:
        print(f"comfort report: {result.comfort_report}")
    if args.timings and result.stages:
        from stereo_inference.native import backend
        from stereo_inference.stage_clock import describe

        print(describe(result.stages))
        print(f"CPU plane loops: {backend()}")
    return 0


def _default_depth(args, settings: InferenceSettings,
                   has_gpu: Callable[[], bool] | None) -> DepthModel:
    """The depth model when ``--depth`` is not given: the best installed; else, on a
    GPU, Depth-Anything-V2-Small downloaded now; else the weight-free default, with
    a line offering the model and each choice's time, or saying that none can be had
    (``stereo_models.default_depth``)."""
    from stereo_models.default_depth import settle_default_depth

    from stereo_inference.depth import default_depth_model
    from stereo_inference.progress_bar import download_bar
    from stereo_inference.runtime import resolve_device
    from stereo_inference.video_info import video_length

    if args.depth_video is not None:  # the depth is given: no model runs
        return default_depth_model(settings.models_dir)
    device = args.device or settings.device
    with download_bar(enabled=not args.no_progress) as progress:
        return settle_default_depth(
            settings.models_dir, auto_download=settings.model_auto_download,
            has_gpu=has_gpu or (lambda: resolve_device(device) == "cuda"),
            endpoint=settings.hub_endpoint, say=print,
            pick=f"add --depth {DepthModel.DA2_SMALL.value} to use it",
            measure=lambda: video_length(args.input), progress=progress)


def _depth(args, settings: InferenceSettings) -> int:
    from stereo_inference.depth import default_depth_model
    from stereo_inference.depth_export import export_depth
    from stereo_inference.progress_bar import progress_bar

    check_output(args.input, args.output, overwrite=args.overwrite)
    model = args.depth or default_depth_model(settings.models_dir)
    with progress_bar(enabled=not args.no_progress) as progress:
        frames = export_depth(
            args.input, args.output, depth_model=model, models_dir=settings.models_dir,
            device=args.device or settings.device, auto_download=settings.model_auto_download,
            hub_endpoint=settings.hub_endpoint, progress=progress)
    print(f"wrote {args.output}: depth of {frames} frames ({model}), 16-bit, 65535 = nearest")
    return 0


def _serve(args, settings: InferenceSettings) -> int:
    use_one_malloc_arena()  # before uvicorn's threads: a request reuses the last one's memory
    import uvicorn

    if not args.sagemaker and settings.inference_shared_secret is None:
        print("stereo-inference serve: set STEREO_SPOT_INFERENCE_SHARED_SECRET (callers send it "
              "as X-StereoSpot-Secret), or pass --sagemaker inside a SageMaker endpoint",
              file=sys.stderr)
        return 2
    if args.sagemaker:
        settings = settings.model_copy(update={"inference_shared_secret": None})

    from stereo_inference.server import create_app

    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info")
    return 0


if __name__ == "__main__":
    sys.exit(main())
