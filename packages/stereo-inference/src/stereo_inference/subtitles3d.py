"""Burn text subtitles into both views, just in front of what lies under them.

A subtitle drawn at the same place in both eyes sits on the screen plane; when
a face under it pops out of the screen, the text looks "behind" the face and
the eyes fight. Here each cue's text is shifted apart in the two views by a
disparity just larger than the nearest content under the cue's screen region:
the largest per-eye disparity there, over every frame of the cue seen so far
(it never moves back during a cue, so it does not jitter), plus a margin.
Right eye: a point at x is seen at x - d; left eye at x + d (``warp``'s
convention), so the text sits at x + s in the left view and x - s in the right.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from shared_types.models import OutputMode
from stereo_media.demuxers import file_only
from stereo_media.subtitle_cues import TextCue, parse_srt

from stereo_inference.arrays import as_float
from stereo_inference.decode import FrameBatch
from stereo_inference.errors import EngineTransientError
from stereo_inference.shaping import Shaping, eye_shifts
from stereo_inference.shot_plan import FramePlan
from stereo_inference.tonemap import HLG, PQ, nits_to_pq

FONT = cv2.FONT_HERSHEY_SIMPLEX
HDR_GRAPHICS_WHITE_NITS = 203  # BT.2408: text and graphics white in a PQ picture
HLG_GRAPHICS_WHITE = 0.75  # the same white as an HLG signal level
# anaglyph: the left eye's text red, the right eye's cyan (Y, U, V; BT.601 limited)
RED, CYAN = (81, 90, 240), (170, 166, 16)


@dataclass(frozen=True)
class TextLevels:
    """Codes the text is drawn with: its white, its outline's black, neutral chroma."""

    white: int = 235
    black: int = 16
    neutral: int = 128


def text_levels(bit_depth: int, transfer: int | None) -> TextLevels:
    """Limited-range levels at ``bit_depth`` for an output of ``transfer`` (FFmpeg's
    number): on PQ or HLG the text is HDR graphics white (203 nits, BT.2408),
    not the format's peak, which would glare, nor SDR's 235, which a 10-bit
    or PQ picture shows as dark grey."""
    scale = 1 << max(0, bit_depth - 8)
    signal = 1.0
    if transfer == PQ:
        signal = float(nits_to_pq(HDR_GRAPHICS_WHITE_NITS))
    elif transfer == HLG:
        signal = HLG_GRAPHICS_WHITE
    return TextLevels(white=round((16 + 219 * signal) * scale), black=16 * scale,
                      neutral=128 * scale)


def read_text_cues(ffmpeg: str, source: Path, timeout_s: float) -> list[TextCue]:
    """The cues of the first text subtitle stream of ``source`` (none: empty), at
    their own times (``-copyts``: the times decoded frames carry, also in a
    segment or a source that does not start at 0). Raises EngineTransientError
    when ffmpeg fails for another reason."""
    args = [ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-copyts",
            *file_only(), "-i", str(source), "-map", "0:s:0?", "-f", "srt",
            "pipe:1"]
    try:
        done = subprocess.run(args, capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise EngineTransientError("reading the subtitles took too long") from exc
    if done.returncode != 0:
        if b"does not contain any stream" in done.stderr or not done.stdout:
            return []
        raise EngineTransientError(f"cannot read subtitles: {done.stderr[-300:]!r}")
    return parse_srt(done.stdout.decode("utf-8", "replace"))


class SubtitleBurner:
    """Draws cues into output frames (yuv420p: packed SBS/TB, or anaglyph) in place."""

    def __init__(self, cues: list[TextCue], mode: OutputMode, eye_size: tuple[int, int],
                 levels: TextLevels = TextLevels()) -> None:  # noqa: B008
        self.cues, self.mode, self.levels = cues, mode, levels
        self.w, self.h = eye_size
        # half layouts squeeze one axis: draw at display proportions, then squeeze
        self.squeeze = (2 if mode is OutputMode.HALF_SBS else 1,
                        2 if mode is OutputMode.HALF_TB else 1)
        self.margin = max(1.0, 0.004 * self.w)
        self._masks: dict[int, tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]]] = {}
        self.shift: dict[int, float] = {}  # per cue: the text's disparity (both eyes)

    def __call__(self, frames: np.ndarray, batch: FrameBatch, depth,
                 shaping: Shaping) -> np.ndarray:
        """Burns the cues shown at each frame of ``batch`` into ``frames``, placed
        by ``shaping`` (the renderer's) and the batch's ``plan``."""
        tb = batch.time_base or 0
        shaping = shaping.at_width(self.w)
        plan = batch.plan or FramePlan()
        for i, pts in enumerate(batch.pts):
            if pts is None:
                continue
            t = float(pts * tb)
            for index, cue in enumerate(self.cues):
                if cue.start_s <= t < cue.end_s:
                    self._burn(frames[i], index, self._disparity(depth, i, shaping, plan))
        return frames

    def _disparity(self, depth, i: int, shaping: Shaping, plan: FramePlan):
        """(frame ``i``'s disparity (h, w) at eye size as the render shapes it,
        the shaping's near limit)."""
        per_frame = [None if v is None else v[i:i + 1] for v in (plan.convergence, plan.strength)]
        right, left = eye_shifts(as_float(depth[i:i + 1]), (self.h, self.w), shaping,
                                 *per_frame)
        return (right + left)[0, 0], shaping.near_px

    def _burn(self, frame: np.ndarray, index: int, shaped) -> None:
        disp, near_px = shaped
        text, outline, (x0, y0, x1, y1) = self._mask(index)
        nearest = float(disp[y0:y1, x0:x1].max())
        self.shift[index] = max(self.shift.get(index, -1e9), nearest + 2 * self.margin)
        # never nearer than the near limit (``--comfort fix``: the zone's)
        s = int(np.ceil(self.shift[index] / 2))
        if np.isfinite(near_px):
            s = min(s, int(np.floor(near_px / 2)))
        left = (np.roll(text, s, axis=1), np.roll(outline, s, axis=1))
        right = (np.roll(text, -s, axis=1), np.roll(outline, -s, axis=1))
        rows = frame.shape[0] * 2 // 3
        luma, chroma = frame[:rows], frame[rows:].reshape(2, rows // 2, frame.shape[1] // 2)
        if self.mode is OutputMode.ANAGLYPH:
            lv = self.levels
            _draw_colour(luma, chroma, left[1] | right[1], (lv.black, lv.neutral, lv.neutral))
            _draw_colour(luma, chroma, left[0], RED)
            _draw_colour(luma, chroma, right[0], CYAN)
            _draw_colour(luma, chroma, left[0] & right[0], (lv.white, lv.neutral, lv.neutral))
            return
        sbs = self.mode in (OutputMode.SBS, OutputMode.HALF_SBS)
        for eye, masks in enumerate((left, right)):
            ox, oy = (eye * self.w, 0) if sbs else (0, eye * self.h)
            _draw_yuv(luma, chroma, masks, ox, oy, self.levels)

    def _mask(self, index: int):
        """(text mask, outline mask, text box x0,y0,x1,y1) at eye size for a cue."""
        if index in self._masks:
            return self._masks[index]
        sx, sy = self.squeeze
        dw, dh = self.w * sx, self.h * sy
        scale = max(0.4, dh / 720 * 1.1)
        thick = max(1, round(scale * 2))
        lines = self.cues[index].text.splitlines()
        sizes = [cv2.getTextSize(line, FONT, scale, thick) for line in lines]
        line_h = max(s[0][1] + s[1] for s in sizes) + thick * 2
        canvas: np.ndarray = np.zeros((dh, dw), np.uint8)
        y = dh - int(0.06 * dh) - line_h * (len(lines) - 1)
        for line, ((tw, _), _) in zip(lines, sizes, strict=True):
            cv2.putText(canvas, line, ((dw - tw) // 2, y), FONT, scale, 255, thick, cv2.LINE_AA)
            y += line_h
        outline = cv2.dilate(canvas, np.ones((3 * thick, 3 * thick), np.uint8))
        if (sx, sy) != (1, 1):
            canvas = cv2.resize(canvas, (self.w, self.h), interpolation=cv2.INTER_AREA)
            outline = cv2.resize(outline, (self.w, self.h), interpolation=cv2.INTER_AREA)
        text, ring = canvas > 96, outline > 32
        ys, xs = np.nonzero(ring)
        pad = int(0.02 * self.w)
        box = (max(0, xs.min() - pad), max(0, ys.min() - pad),
               min(self.w, xs.max() + pad + 1), min(self.h, ys.max() + 1))
        self._masks[index] = (text, ring, box)
        return self._masks[index]


def _draw_yuv(luma, chroma, masks, ox, oy, levels: TextLevels) -> None:
    text, ring = masks
    h, w = text.shape
    view = luma[oy:oy + h, ox:ox + w]
    view[ring] = levels.black
    view[text] = levels.white
    c = ring[::2, ::2]
    chroma[:, oy // 2:oy // 2 + h // 2, ox // 2:ox // 2 + w // 2][:, c[:h // 2, :w // 2]] = \
        levels.neutral


def _draw_colour(luma, chroma, mask, yuv) -> None:
    luma[mask] = yuv[0]
    half = mask[::2, ::2][:chroma.shape[1], :chroma.shape[2]]
    chroma[0][half] = yuv[1]
    chroma[1][half] = yuv[2]
