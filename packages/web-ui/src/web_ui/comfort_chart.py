"""The job page's comfort chart: the per-shot comfort report as bars of a small
inline SVG, drawn on the server (``templates/_comfort_chart.html``).

Each shot is a bar over its time span, from its largest uncrossed disparity
(behind the screen, below the axis) to its largest crossed one (in front,
above); the comfort zone's limits, when the output was made for a viewing,
are dashed lines. A shot that left the zone is marked ``outside``, one in
which something in front of the screen touched a side border ``edge``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from shared_types.comfort_reports import comfort_key
from shared_types.errors import NotFoundError
from shared_types.models import Job, JobStatus
from shared_types.ports import Backend

log = logging.getLogger(__name__)
WIDTH, HEIGHT, PAD = 600, 120, 4


@dataclass(frozen=True)
class ShotBar:
    index: int
    x: float
    width: float
    y: float
    height: float
    start_s: float
    end_s: float
    near_px: float
    far_px: float
    outside: bool
    edge: bool

    @property
    def title(self) -> str:
        words = [f"Shot {self.index + 1}: {self.start_s:.1f}-{self.end_s:.1f} s",
                 f"{self.near_px:g} px in front, {self.far_px:g} px behind"]
        if self.outside:
            words.append("outside the comfort zone")
        if self.edge:
            words.append("near things touch a side edge")
        return ", ".join(words)


@dataclass(frozen=True)
class ComfortChart:
    bars: list[ShotBar]
    axis_y: float
    near_limit_y: float | None
    far_limit_y: float | None
    viewing: str | None
    width: int = WIDTH
    height: int = HEIGHT


def chart_of(report: dict) -> ComfortChart | None:
    """The chart of a comfort report (None when it has no shots)."""
    shots = report.get("shots") or []
    if not shots:
        return None
    viewing = report.get("viewing") or {}
    start, end = shots[0]["start_s"], max(s["end_s"] for s in shots)
    span = max(end - start, 1e-6)
    near_lim, far_lim = viewing.get("near_limit_px"), viewing.get("zone_far_limit_px")
    top = max([s["near_px"] for s in shots] + [near_lim or 0, 1.0])
    bottom = max([s["far_px"] for s in shots] + [far_lim or 0, 1.0])
    scale = (HEIGHT - 2 * PAD) / (top + bottom)
    axis = PAD + top * scale
    bars = []
    for i, s in enumerate(shots):
        x = (s["start_s"] - start) / span * WIDTH
        w = max((s["end_s"] - s["start_s"]) / span * WIDTH - 1, 1.0)
        bars.append(ShotBar(
            index=i, x=round(x, 1), width=round(w, 1),
            y=round(axis - s["near_px"] * scale, 1),
            height=round(max((s["near_px"] + s["far_px"]) * scale, 1.0), 1),
            start_s=s["start_s"], end_s=s["end_s"], near_px=s["near_px"], far_px=s["far_px"],
            outside=bool(s.get("outside_zone_s")), edge=bool(s.get("edge_violation_s"))))
    return ComfortChart(
        bars=bars, axis_y=round(axis, 1),
        near_limit_y=None if near_lim is None else round(axis - near_lim * scale, 1),
        far_limit_y=None if far_lim is None else round(axis + far_lim * scale, 1),
        viewing=viewing.get("preset"))


def job_comfort_chart(backend: Backend, job: Job) -> ComfortChart | None:
    """The chart of a completed job's comfort report; None when it has none or
    it cannot be read (logged: the page shows the video without it)."""
    if job.status != JobStatus.COMPLETED or not job.final_key:
        return None
    try:
        report = json.loads(backend.output_storage.get_bytes(comfort_key(job.final_key)))
    except NotFoundError:
        return None
    except ValueError as exc:
        log.warning("job_id=%s comfort report unreadable: %s", job.job_id, exc)
        return None
    return chart_of(report)
