"""Comfort reports in the pipeline: where a segment's and a job's lie, and how
the segments' reports join into the job's (``stereo_inference.comfort_report``
writes them; the format is described there)."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

from shared_types.errors import NotFoundError
from shared_types.ports import ObjectStorage

log = logging.getLogger(__name__)
COMFORT_SUFFIX = ".comfort.json"


def comfort_key(video_key: str) -> str:
    """The report's key beside the video at ``video_key`` (``.../3.mp4`` ->
    ``.../3.mp4.comfort.json``): not an ``.mp4``, so writing it raises no event."""
    return video_key + COMFORT_SUFFIX


def merge_reports(parts: list[dict]) -> dict:
    """One report from the reports of consecutive segments, in order: a segment's
    first shot that does not open at a cut continues the shot before it."""
    if not parts:
        raise ValueError("no reports to merge")
    merged = {**parts[0], "shots": []}
    for part in parts:
        for i, shot in enumerate(part.get("shots", [])):
            shots = merged["shots"]
            if i == 0 and shots and not shot.get("opens_at_cut"):
                shots[-1] = _joined(shots[-1], shot)
            else:
                shots.append(dict(shot))
    return merged


def _joined(a: dict, b: dict) -> dict:
    def total(key):
        return None if a.get(key) is None else round(a[key] + (b.get(key) or 0), 3)

    def most(key):
        values = [v for v in (a.get(key), b.get(key)) if v is not None]
        return max(values) if values else None

    return {**a, "end_s": b["end_s"], "frames": a["frames"] + b["frames"],
            "near_px": most("near_px"), "far_px": most("far_px"),
            "near_deg": most("near_deg"), "far_deg": most("far_deg"),
            "outside_zone_s": total("outside_zone_s"),
            "edge_violation_s": total("edge_violation_s"),
            "window": bool(a.get("window") or b.get("window"))}


def join_stored_reports(storage: ObjectStorage, segment_keys: Sequence[str],
                        final_key: str) -> str | None:
    """Merge the reports beside the converted segments ``segment_keys`` (in order)
    into one beside ``final_key``; returns its key, or None when a segment has
    none (converted without a report, or by iw3) or one cannot be read (logged:
    the video is complete without it). Raises the storage's TransientError."""
    parts = []
    for key in segment_keys:
        try:
            parts.append(json.loads(storage.get_bytes(comfort_key(key))))
        except NotFoundError:
            log.info("no comfort report beside %s; the video gets none", key)
            return None
        except ValueError as exc:
            log.warning("comfort report beside %s is unreadable (%s); the video gets none",
                        key, exc)
            return None
    target = comfort_key(final_key)
    storage.put_bytes(target, json.dumps(merge_reports(parts), indent=1).encode(),
                      content_type="application/json")
    return target
