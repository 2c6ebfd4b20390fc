"""A terminal progress bar (frames, fps, ETA) for the CLI."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(*, enabled: bool = True) -> Iterator[Callable[[int, int | None], None] | None]:
    """Yield a ``progress(frames_done, frames_total)`` callback drawing a bar."""
    if not enabled:
        yield None
        return
    # rich takes ~0.1 s to import: paid only when a bar is drawn
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("converting"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
        TextColumn("{task.fields[fps]:.1f} fps"), TextColumn("ETA"), TimeRemainingColumn(),
    )
    with Progress(*columns, transient=False) as bar:
        task = bar.add_task("convert", total=None, fps=0.0)

        def update(done: int, total: int | None) -> None:
            elapsed = bar.tasks[0].elapsed or 0.0
            bar.update(task, completed=done, total=total, fps=done / elapsed if elapsed else 0.0)

        yield update


@contextmanager
def download_bar(*, enabled: bool = True) -> Iterator[Callable[[str, int, int], None] | None]:
    """Yield a ``progress(file, bytes_done, bytes_total)`` callback drawing one bar
    per file of a model download (``stereo_models.model_install.download_model``)."""
    if not enabled:
        yield None
        return
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    columns = (TextColumn("downloading {task.description}"), BarColumn(), DownloadColumn(),
               TransferSpeedColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=False) as bar:
        tasks: dict[str, TaskID] = {}

        def update(file: str, done: int, total: int) -> None:
            if file not in tasks:
                tasks[file] = bar.add_task(file, total=total or None)
            bar.update(tasks[file], completed=done, total=total or None)

        yield update
