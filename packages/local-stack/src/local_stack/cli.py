"""The ``stereo-spot`` command: serve, convert, jobs, retry, dlq, models.

Settings are read once here (``STEREO_SPOT_*``), then command-line options
override them. Every failure ends as one line on stderr and a non-zero exit.
"""

from __future__ import annotations

import argparse
import logging
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from shared_types.comfort_cli import add_comfort_arguments, params_from_args
from shared_types.errors import StereoSpotError
from shared_types.fast_exit import exit_now
from shared_types.layout_options import add_layout_options, layout_params
from shared_types.left_out import left_out_sentence
from shared_types.models import (
    ENCODER_PRESETS,
    Container,
    ConversionParams,
    DepthModel,
    DynamicRange,
    OutputMode,
)
from shared_types.output_guard import check_output
from stereo_media.stream_mux import container_of
from stereo_models.model_install import check_model_available
from stereo_models.models_cli import add_models_parser, run_models_command

from local_stack.settings import StackSettings


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="stereo-spot", description="Turn 2D videos into 3D.")
    p.add_argument("-v", "--verbose", action="store_true", help="log what the CLI does")
    sub = p.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the web UI and workers on this machine")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--workers", type=int, help="video-worker processes")
    serve.add_argument("--data-dir", type=Path)
    serve.add_argument("--allowed-host", action="append", dest="allowed_hosts", metavar="NAME",
                       help="a host name or address people reach the UI by (repeatable); "
                            "required with a --host beyond this machine, which also requires "
                            "a login (STEREO_SPOT_BASIC_AUTH_PASSWORD, else one is printed)")

    conv = sub.add_parser("convert", help="convert one file, or every video under a folder")
    conv.add_argument("input", type=Path, help="a video, or a folder (converted recursively)")
    conv.add_argument("-o", "--output", type=Path, required=True,
                      help="the output file, or for a folder the output folder (sub-folders "
                           "kept; a second run converts only what is not done)")
    conv.add_argument("--mode", type=OutputMode, default=OutputMode.HALF_SBS,
                      choices=list(OutputMode), metavar="{" + ",".join(OutputMode) + "}")
    add_comfort_arguments(conv)
    conv.add_argument("--depth-stride", type=int, default=None, metavar="N",
                      help="run a learned depth model on every N-th frame only, the frames "
                           "between following the motion (default 1)")
    conv.add_argument("--depth-video", type=Path, default=None, metavar="FILE",
                      help="render with this depth instead of estimating it (a 16-bit grey "
                           "video as `stereo-inference depth` writes it); the file is then "
                           "converted in one piece by the engine in this process")
    conv.add_argument("--depth", type=DepthModel, default=None,
                      choices=list(DepthModel), metavar="{" + ",".join(DepthModel) + "}",
                      help="default: the best installed model, else heuristic")
    conv.add_argument("--container", type=Container, choices=list(Container), default=None,
                      metavar="{" + ",".join(Container) + "}",
                      help="output file format (default: from the output's suffix, else mp4)")
    conv.add_argument("--dynamic-range", type=DynamicRange, choices=list(DynamicRange),
                      default=DynamicRange.KEEP, metavar="{" + ",".join(DynamicRange) + "}",
                      help="keep HDR, or tone-map it to SDR (BT.709, 8-bit)")
    conv.add_argument("--subtitles-3d", action="store_true",
                      help="burn the first text subtitle track into both views, in front")
    conv.add_argument("--crf", type=int, default=20,
                      help="constant quality on x264's 0..51 scale (lower is better)")
    conv.add_argument("--preset", choices=ENCODER_PRESETS, default="veryfast")
    add_layout_options(conv)
    conv.add_argument("--workers", type=int, help="video-worker processes")
    conv.add_argument("--segment-seconds", type=float)
    conv.add_argument("--data-dir", type=Path,
                      help="keep the pipeline's data here (default: a temporary folder "
                      "beside the output, removed at the end)")
    conv.add_argument("--overwrite", action="store_true",
                      help="replace an existing output (never the input itself)")

    sub.add_parser("jobs", help="list jobs")
    retry = sub.add_parser("retry", help="resume a failed job")
    retry.add_argument("job_id")
    dlq = sub.add_parser("dlq", help="show dead-lettered messages")
    dlq.add_argument("--redrive", action="store_true", help="move them back to their queues")
    add_models_parser(sub)
    for cmd in (sub.choices["jobs"], retry, dlq):
        cmd.add_argument("--data-dir", type=Path)
    return p


def _settings(args: argparse.Namespace) -> StackSettings:
    settings = StackSettings()
    overrides = {
        name: getattr(args, name) for name in ("host", "port", "workers", "data_dir",
                                                "segment_seconds", "depth_stride",
                                                "allowed_hosts")
        if getattr(args, name, None) is not None
    }
    settings = settings.model_copy(update=overrides)
    if "public_base_url" not in settings.model_fields_set:
        settings = settings.model_copy(
            update={"public_base_url": f"http://{settings.host}:{settings.port}"})
    return StackSettings.model_validate(settings.model_dump())


def _default_depth(args: argparse.Namespace, settings: StackSettings, console: Console,
                   has_gpu: Callable[[], bool] | None) -> DepthModel:
    """The depth model when ``--depth`` is not given (``stereo_models.default_depth``):
    downloaded here, with its bar, before any worker needs it."""
    from stereo_inference.progress_bar import download_bar
    from stereo_inference.runtime import resolve_device
    from stereo_inference.video_info import video_length
    from stereo_models.default_depth import settle_default_depth

    with download_bar() as progress:
        return settle_default_depth(
            settings.models_dir, auto_download=settings.model_auto_download,
            has_gpu=has_gpu or (lambda: resolve_device() == "cuda"),
            endpoint=settings.hub_endpoint, say=lambda line: console.print(
                line, soft_wrap=True, markup=False, highlight=False),
            pick=f"add --depth {DepthModel.DA2_SMALL.value} to use it",
            measure=lambda: video_length(args.input), progress=progress)


def _convert(args: argparse.Namespace, settings: StackSettings, console: Console,
             waiting_workers: Sequence[subprocess.Popen],
             has_gpu: Callable[[], bool] | None = None) -> int:
    from local_stack.convert import ConvertRequest, run_convert, temporary_data_dir

    if not args.input.is_dir():
        check_output(args.input, args.output, overwrite=args.overwrite)  # before any work
    depth = args.depth or _default_depth(args, settings, console, has_gpu)
    check_model_available(depth, settings.models_dir, auto_download=settings.model_auto_download,
                          endpoint=settings.hub_endpoint)  # before any upload or chunking
    params = params_from_args(args, depth_model=depth, dynamic_range=args.dynamic_range,
                              subtitles_3d=args.subtitles_3d, crf=args.crf, preset=args.preset,
                              **layout_params(args))
    if args.input.is_dir():
        return _convert_folder(args, settings, params, console, waiting_workers)
    container = args.container or container_of(args.output)
    if args.depth_video is not None:
        from local_stack.depth_video_convert import convert_with_depth_video

        return convert_with_depth_video(args, settings, params, container, console)
    request = ConvertRequest(args.input, args.output, args.mode, params, container,
                             start_s=args.start, end_s=args.end)
    if args.data_dir is not None:
        snap = run_convert(settings, request, console, waiting_workers=waiting_workers)
    else:
        with temporary_data_dir(args.output) as tmp:
            snap = run_convert(settings.model_copy(update={"data_dir": tmp}),
                               request, console, waiting_workers=waiting_workers)
    console.print(f"wrote {args.output} ({snap.segments_total} segment(s))", soft_wrap=True)
    if snap.left_out:
        console.print(f"not in this file: {left_out_sentence(snap.left_out, container)}",
                      soft_wrap=True)
    return 0


def _convert_folder(args: argparse.Namespace, settings: StackSettings, params: ConversionParams,
                    console: Console, waiting_workers: Sequence[subprocess.Popen]) -> int:
    from local_stack.folder_convert import FolderRequest, run_folder

    request = FolderRequest(args.input, args.output, args.mode, params,
                            args.container or Container.MP4, overwrite=args.overwrite,
                            data_dir=args.data_dir, start_s=args.start, end_s=args.end)
    summary = run_folder(settings, request, console, waiting_workers=waiting_workers)
    return 1 if summary.failed else 0


def _run(args: argparse.Namespace, console: Console,
         waiting_workers: Sequence[subprocess.Popen] = (),
         has_gpu: Callable[[], bool] | None = None) -> int:
    settings = _settings(args)
    if args.command == "serve":
        from local_stack.serve import run_serve

        return run_serve(settings, console)
    if args.command == "convert":
        return _convert(args, settings, console, waiting_workers, has_gpu)
    if args.command == "models":
        return run_models_command(args, settings.models_dir, endpoint=settings.hub_endpoint)

    from shared_types.backend_loader import load_backend

    from local_stack import ops

    backend = load_backend(settings)
    if args.command == "jobs":
        ops.render_jobs(console, ops.list_jobs(backend))
    elif args.command == "retry":
        job = ops.retry(backend, args.job_id)
        console.print(f"job {job.job_id} resumed: {job.status.value}")
    elif args.redrive:
        moved = ops.redrive_all(backend)
        console.print(", ".join(f"{q}: {n}" for q, n in moved.items()) + " redriven")
    else:
        ops.render_dead_letters(console, ops.dead_letters(backend))
    return 0


def main(argv: list[str] | None = None, *,
         waiting_workers: Sequence[subprocess.Popen] = (),
         has_gpu: Callable[[], bool] | None = None) -> int:
    """The ``stereo-spot`` command (``local_stack.launch`` runs it); returns the exit
    code. ``waiting_workers``: video-workers already started for ``convert``,
    waiting for their environment (``local_stack.launch``). ``has_gpu``: whether the
    engine here has a GPU (default: asked of the engine, ``runtime.resolve_device``)."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    console = Console(stderr=False)
    if argv is None and args.command == "convert":
        # a kill or a closed terminal ends the command the way Ctrl-C does: its job
        # is cancelled, its workers drain and its temporary folder is removed
        for name in ("SIGTERM", "SIGHUP"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.default_int_handler)
    try:
        code = _run(args, console, waiting_workers, has_gpu)
        if argv is None and args.command == "convert":
            # the output is written and the workers have exited: nothing to tear down
            exit_now(code)
        return code
    except KeyboardInterrupt:
        print("stereo-spot: interrupted", file=sys.stderr)
        return 130
    except (StereoSpotError, OSError, ValueError) as exc:
        print(f"stereo-spot: {exc}", file=sys.stderr)
        return 1
