"""Text subtitle cues: SubRip in and out, and the cues of one segment's window.

The engine burns cues into the picture (``stereo_inference.subtitles3d``); in the
segmented pipeline the chunker hands each segment the cues that overlap it, at
their times on the source's timeline, which segments keep
(``media_worker.segment_subtitles``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_SRT_TIME = re.compile(r"(\d+):(\d\d):(\d\d)[,.](\d{3})\s*-->\s*(\d+):(\d\d):(\d\d)[,.](\d{3})")
_TAGS = re.compile(r"<[^>]*>|\{[^}]*\}")


@dataclass(frozen=True)
class TextCue:
    start_s: float
    end_s: float
    text: str


def parse_srt(text: str) -> list[TextCue]:
    """SubRip text to cues (markup stripped, empty cues dropped)."""
    cues = []
    for block in re.split(r"\n\s*\n", text.replace("\r", "")):
        lines = block.strip().splitlines()
        for i, line in enumerate(lines):
            m = _SRT_TIME.search(line)
            if not m:
                continue
            g = [int(x) for x in m.groups()]
            start = g[0] * 3600 + g[1] * 60 + g[2] + g[3] / 1000
            end = g[4] * 3600 + g[5] * 60 + g[6] + g[7] / 1000
            body = _TAGS.sub("", "\n".join(lines[i + 1:])).strip()
            if body:
                cues.append(TextCue(start, end, body))
            break
    return cues


def _srt_time(t: float) -> str:
    # down to the millisecond: a cue cut at a frame's time (a segment's start,
    # 2.1666... s) must not start after that frame (2.167)
    ms = max(0, math.floor(t * 1000 + 1e-6))
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def format_srt(cues: list[TextCue]) -> str:
    """Cues as SubRip text (times rounded down to the millisecond)."""
    return "".join(f"{i}\n{_srt_time(c.start_s)} --> {_srt_time(c.end_s)}\n{c.text}\n\n"
                   for i, c in enumerate(cues, 1))


def cues_in_window(cues: list[TextCue], start_s: float, end_s: float | None, *,
                   shift: bool = True) -> list[TextCue]:
    """The cues shown between ``start_s`` and ``end_s`` (None: to the end), cut to
    that window and, with ``shift``, shifted so the window starts at 0 (without
    it they keep their times: a segment that keeps the source's timestamps). A
    cue that spans a window edge appears, cut, in both windows."""
    out = []
    offset = start_s if shift else 0.0
    for cue in cues:
        if cue.end_s <= start_s or (end_s is not None and cue.start_s >= end_s):
            continue
        stop = cue.end_s if end_s is None else min(cue.end_s, end_s)
        out.append(TextCue(max(cue.start_s, start_s) - offset, stop - offset, cue.text))
    return out
