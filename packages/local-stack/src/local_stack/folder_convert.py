"""``stereo-spot convert DIR -o OUTDIR``: every video under a folder, recursively.

Each video becomes ``OUTDIR/<its sub-folder>/<name>_<layout tag>.<container>``
(the tag VR players read, ``shared_types.models.LAYOUT_TAGS``), converted by
``run_convert`` one after the other. A file is done when its output exists:
``run_convert`` writes it under a temporary name and renames it into place
only when whole, so a run killed at any moment (SIGKILL included) leaves
either no output or a finished one. The next run skips every finished output
and converts the rest: each file is converted exactly once. A manifest
(``OUTDIR/.stereo-spot-done.json``, rewritten atomically after each file)
records what was converted from which source, and the data folder of a killed
run (``OUTDIR/.stereo-spot-data``) is taken over by the next, which cancels the
killed job (``convert_owner``) and removes the folder when all is done.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from shared_types.errors import StereoSpotError
from shared_types.models import LAYOUT_TAGS, Container, ConversionParams, OutputMode
from shared_types.output_guard import OutputIsInputError, check_output, is_same_file

from local_stack.convert import ConvertRequest, run_convert
from local_stack.settings import StackSettings

VIDEO_SUFFIXES = frozenset({
    ".mp4", ".m4v", ".mov", ".mkv", ".webm", ".avi", ".wmv", ".flv", ".ts", ".m2ts",
    ".mts", ".mpg", ".mpeg", ".3gp", ".ogv",
})
MANIFEST = ".stereo-spot-done.json"
DATA_FOLDER = ".stereo-spot-data"


@dataclass(frozen=True)
class FolderRequest:
    source: Path
    output: Path
    mode: OutputMode
    params: ConversionParams
    container: Container = Container.MP4
    overwrite: bool = False
    data_dir: Path | None = None  # None: OUTDIR/.stereo-spot-data, removed once all is done
    start_s: float | None = None  # the same part of every video (``source_cut``)
    end_s: float | None = None


@dataclass
class FolderSummary:
    converted: int = 0
    done_before: int = 0
    failed: int = 0

    @property
    def total(self) -> int:
        return self.converted + self.done_before + self.failed


def videos_under(folder: Path, *, leave_out: Path | None = None) -> Iterator[Path]:
    """Every video file under ``folder`` by its suffix, in a stable order, leaving
    out hidden files and folders (temporary ones among them) and ``leave_out``
    (an output folder inside the input folder)."""
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and not (leave_out is not None and is_same_file(here / d, leave_out)))
        for name in sorted(files):
            if not name.startswith(".") and Path(name).suffix.lower() in VIDEO_SUFFIXES:
                yield here / name


def output_for(source: Path, request: FolderRequest) -> Path:
    """Where ``source`` (under ``request.source``) is written."""
    relative = source.relative_to(request.source)
    name = f"{source.stem}_{LAYOUT_TAGS[request.mode]}.{request.container.value}"
    return request.output / relative.parent / name


class Manifest:
    """What this output folder's runs converted, by source path (relative)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / MANIFEST
        try:
            self.done: dict[str, dict] = json.loads(self.path.read_text())["done"]
        except (OSError, ValueError, KeyError, TypeError):
            self.done = {}

    def record(self, relative: str, source: Path, output: Path, mode: OutputMode) -> None:
        """Add one finished file and rewrite the manifest atomically."""
        stat = source.stat()
        self.done[relative] = {"output": str(output), "mode": mode.value, "at": time.time(),
                               "source_size": stat.st_size, "source_mtime_ns": stat.st_mtime_ns}
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        with tmp.open("w") as f:
            json.dump({"done": self.done}, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


def run_folder(settings: StackSettings, request: FolderRequest, console: Console, *,
               waiting_workers=()) -> FolderSummary:
    """Convert every video under ``request.source`` into ``request.output``; one
    line per file, then the total. Raises OutputIsInputError when the output
    folder is the input folder (its outputs would become inputs)."""
    if is_same_file(request.source, request.output):
        raise OutputIsInputError(f"the output folder {request.output} is the input folder; "
                                 "choose another one (it may lie inside the input folder)")
    request.output.mkdir(parents=True, exist_ok=True)
    sources = list(videos_under(request.source, leave_out=request.output))
    manifest = Manifest(request.output)
    settings = settings.model_copy(
        update={"data_dir": request.data_dir or request.output / DATA_FOLDER})
    quiet = Console(quiet=True)
    summary, started = FolderSummary(), time.monotonic()
    for i, source in enumerate(sources, 1):
        relative = source.relative_to(request.source).as_posix()
        output = output_for(source, request)
        head = f"[{i}/{len(sources)}] {escape(relative)}"
        if output.exists() and not request.overwrite:
            summary.done_before += 1
            if relative not in manifest.done:
                manifest.record(relative, source, output, request.mode)
            console.print(f"{head}: already done ({escape(str(output))})", soft_wrap=True)
            continue
        began = time.monotonic()
        try:
            check_output(source, output, overwrite=request.overwrite)
            output.parent.mkdir(parents=True, exist_ok=True)
            with console.status(f"{head}: converting"):
                run_convert(settings, ConvertRequest(source, output, request.mode,
                                                     request.params, request.container,
                                                     request.start_s, request.end_s),
                            quiet, waiting_workers=waiting_workers)
        except (StereoSpotError, OSError) as exc:
            summary.failed += 1
            console.print(f"{head}: failed: {escape(str(exc))}", soft_wrap=True)
            continue
        finally:
            waiting_workers = ()  # handed to the first conversion only
        manifest.record(relative, source, output, request.mode)
        summary.converted += 1
        console.print(f"{head} -> {escape(str(output))}: converted in "
                      f"{time.monotonic() - began:.1f} s", soft_wrap=True)
    if not summary.failed and request.data_dir is None:  # else it says what failed
        shutil.rmtree(request.output / DATA_FOLDER, ignore_errors=True)
    console.print(f"{summary.total} video(s): {summary.converted} converted, "
                  f"{summary.done_before} already done, {summary.failed} failed "
                  f"({time.monotonic() - started:.0f} s)", soft_wrap=True)
    return summary
