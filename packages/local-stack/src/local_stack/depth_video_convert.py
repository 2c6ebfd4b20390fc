"""``stereo-spot convert --depth-video``: a file rendered with imported depth.

A depth video holds one frame per source frame of the whole file, so the file
is converted in one piece by the engine in this process (the pipeline would
cut the source into segments the depth video knows nothing of).
"""

from __future__ import annotations

import argparse

from rich.console import Console
from shared_types.models import Container, ConversionParams

from local_stack.settings import StackSettings


def convert_with_depth_video(args: argparse.Namespace, settings: StackSettings,
                             params: ConversionParams, container: Container,
                             console: Console) -> int:
    """Convert ``args.input`` to ``args.output`` with depth from ``args.depth_video``.
    Raises the engine's errors (a depth video of the wrong frame count or shape
    is refused before anything is converted)."""
    from shared_types.conversion import EngineRuntime
    from stereo_inference.convert import convert_file
    from stereo_inference.progress_bar import progress_bar

    with progress_bar(enabled=console.is_terminal) as progress:
        result = convert_file(
            args.input, args.output, mode=args.mode, params=params, progress=progress,
            runtime=EngineRuntime(models_dir=settings.models_dir, ffmpeg=settings.ffmpeg),
            container=container, depth_video=args.depth_video, start_at_zero=True,
        )
    console.print(f"wrote {args.output} ({result.frames} frames, depth from "
                  f"{args.depth_video.name})", soft_wrap=True)
    if result.comfort_report:
        console.print(f"comfort report: {result.comfort_report}", soft_wrap=True)
    return 0
