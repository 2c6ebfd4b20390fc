"""Rich progress bars for a job: segments, frames, fps and ETA."""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from shared_types.job_progress import JobSnapshot
from shared_types.progress import STAGE_LABELS


class JobProgressView:
    """Turns snapshots into two bars. Frames and fps come from the workers'
    heartbeats while segments convert (else they are estimated from finished
    segments over elapsed time); the time left is the snapshot's staged
    estimate (the same model the web page shows)."""

    def __init__(self, console: Console, frames_total: int | None = None) -> None:
        self._frames_total = frames_total
        self._started = time.monotonic()
        self.progress = Progress(
            TextColumn("[bold]{task.description:<12}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[extra]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
            refresh_per_second=4,  # snapshots come at 4 Hz while segments convert
        )
        self._segments = self.progress.add_task("segments", total=None, extra="")
        self._frames = self.progress.add_task("frames", total=frames_total, extra="")

    def __enter__(self) -> JobProgressView:
        self.progress.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.progress.__exit__(kind, error, traceback)

    def update(self, snap: JobSnapshot) -> None:
        """Show one snapshot."""
        total = snap.segments_total
        stage = STAGE_LABELS[snap.status]
        failed = f" ({snap.segments_failed} failed)" if snap.segments_failed else ""
        percent = f" · {snap.percent:.0f} % of the work" if snap.percent is not None else ""
        self.progress.update(self._segments, total=total, completed=snap.segments_done,
                             extra=f"{stage}{failed}{percent}")
        live = snap.frames
        frames_total = self._frames_total or snap.frames_total
        eta = f" · {round(snap.eta_seconds)} s left" if snap.eta_seconds is not None else ""
        if live is not None:
            fps = f"{live.fps:6.1f} fps" if live.fps else ""
            self.progress.update(self._frames, completed=live.frames_done,
                                 total=live.frames_total or frames_total, extra=fps + eta)
        elif frames_total and total:
            frames = round(frames_total * min(1.0, snap.segments_done / total))
            elapsed = max(1e-6, time.monotonic() - self._started)
            self.progress.update(self._frames, completed=frames, total=frames_total,
                                 extra=f"{frames / elapsed:6.1f} fps" + eta)
