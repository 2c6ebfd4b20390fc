"""The comfort report: per shot, the disparity used, the time outside the
comfort zone, and the frame-edge violations.

Written as ``<output>.comfort.json`` beside a conversion's output (``path_for``)::

    {"version": 1, "eye_width": 960, "fixed": false,
     "viewing": {"preset": "tv-65", "rule": "1 degree", "far_limit_px": ..., ...} | null,
     "shots": [{"start_s": 0.0, "end_s": 2.5, "frames": 60, "opens_at_cut": true,
                "near_px": 31.2, "far_px": 40.0, "near_deg": 0.62, "far_deg": 0.81,
                "outside_zone_s": 0.0, "edge_violation_s": 0.4, "window": false}, ...]}

Disparities are in pixels of the eye image as the file holds it: ``near_px``
the largest crossed one (in front of the screen), ``far_px`` the largest
uncrossed one (behind it); degrees are how far they move the eyes' vergence
off the screen's, for the viewing (null without one, as is the zone).
A frame is outside the zone when either exceeds the viewing's limit by more
than ``TOLERANCE_PX``; it violates the frame edge when something in front of
the screen touches the left or right border (``EDGE_PX`` or more).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from stereo_inference.viewing import Limits, Viewing

VERSION = 1
TOLERANCE_PX = 0.5
EDGE_PX = 1.0


def path_for(output: Path) -> Path:
    """Where the report of ``output`` is written: ``<output>.comfort.json``."""
    return output.with_name(output.name + ".comfort.json")


@dataclass
class _Shot:
    start_s: float
    opens_at_cut: bool | None
    end_s: float = 0.0
    frames: int = 0
    near_px: float = 0.0
    far_px: float = 0.0
    outside_s: float = 0.0
    edge_s: float = 0.0
    window: bool = False


@dataclass
class ComfortRecorder:
    """Frame rows in, shots out, for eye images ``eye_width`` wide."""

    eye_width: int
    frame_s: float  # one frame's duration
    viewing: Viewing | None = None
    limits: Limits | None = None
    preset: str | None = None
    fixed: bool = False
    shots: list[_Shot] = field(default_factory=list)

    def add(self, time_s: float, cut: bool | None, low_px: float, high_px: float,
            edge_px: float, window: bool) -> None:
        """One frame at ``time_s``: its most uncrossed (``low_px``, negative behind
        the screen) and most crossed disparity, and the crossed disparity at the
        left/right border (``edge_px``). ``cut`` None: unknown (a conversion's
        first frame, with nothing before it to compare)."""
        if cut or not self.shots:
            self.shots.append(_Shot(start_s=time_s, opens_at_cut=cut))
        shot = self.shots[-1]
        shot.frames += 1
        shot.end_s = time_s + self.frame_s
        shot.near_px = max(shot.near_px, high_px)
        shot.far_px = max(shot.far_px, -low_px)
        if self.limits is not None and (
                high_px > self.limits.near_px + TOLERANCE_PX
                or -low_px > self.limits.zone_far_px + TOLERANCE_PX):
            shot.outside_s += self.frame_s
        if edge_px >= EDGE_PX:
            shot.edge_s += self.frame_s
            shot.window |= window

    def report(self) -> dict:
        """The report as JSON-ready data."""
        viewing = None
        if self.viewing is not None and self.limits is not None:
            viewing = {
                "preset": self.preset, "rule": "1 degree",
                "screen_width_m": round(self.viewing.width_m, 4),
                "distance_m": self.viewing.distance_m,
                "ipd_mm": round(self.viewing.ipd_m * 1000, 2),
                "far_limit_px": round(self.limits.far_px, 2),
                "zone_far_limit_px": round(self.limits.zone_far_px, 2),
                "near_limit_px": round(self.limits.near_px, 2),
            }
        return {"version": VERSION, "eye_width": self.eye_width, "fixed": self.fixed,
                "viewing": viewing, "shots": [self._shot(s) for s in self.shots]}

    def _shot(self, s: _Shot) -> dict:
        viewing = self.viewing
        deg = None if viewing is None else (
            lambda px: round(abs(viewing.degrees(px, self.eye_width)), 3))
        return {
            "start_s": round(s.start_s, 3), "end_s": round(s.end_s, 3), "frames": s.frames,
            "opens_at_cut": s.opens_at_cut,
            "near_px": round(s.near_px, 2), "far_px": round(s.far_px, 2),
            "near_deg": deg(s.near_px) if deg else None,
            "far_deg": deg(-s.far_px) if deg else None,
            "outside_zone_s": round(s.outside_s, 3) if self.limits is not None else None,
            "edge_violation_s": round(s.edge_s, 3), "window": s.window,
        }


def write_report(report: dict, path: Path) -> Path:
    """Write ``report`` to ``path`` atomically (temp file + rename)."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(report, indent=1), encoding="utf-8")
    os.replace(partial, path)
    return path
