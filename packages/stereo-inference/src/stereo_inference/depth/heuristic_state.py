"""What the weight-free estimator (``heuristic``) hands from one segment of a
video to the next, as JSON: the last frame (grey) and its depth, the shot's
age, pace and parallax range, whether the camera stood still, and the maps
it holds between frames (where a still shot changed lately, the last cue
reading). Maps travel as base64 float16 (the frame as uint8); a state from an
older engine lacks some keys (those maps are then rebuilt) or has extra ones
(ignored)."""

from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np


@dataclass
class Saved:
    gray: np.ndarray  # (h,w) uint8
    depth: np.ndarray  # (h,w) float32
    age: int
    pace: float | None
    range: tuple[float, float] | None
    still: bool
    recent: np.ndarray | None
    cue: np.ndarray | None


def pack(saved: Saved) -> dict:
    state = {"shape": list(saved.gray.shape), "range": saved.range, "age": saved.age,
             "gray": _encode(saved.gray), "depth": _encode(saved.depth.astype(np.float16)),
             "pace": saved.pace, "still": saved.still}
    for key, value in (("recent", saved.recent), ("cue", saved.cue)):
        if value is not None:
            state[key] = _encode(value.astype(np.float16))
    return state


def unpack(state: dict) -> Saved | None:
    """``pack``'s state back; None when it is malformed."""
    try:
        h, w = (int(v) for v in state["shape"])
        gray = np.frombuffer(base64.b64decode(state["gray"]), np.uint8).reshape(h, w)
        depth = np.frombuffer(base64.b64decode(state["depth"]), np.float16).reshape(h, w)
        rng = state.get("range")
        rng = (float(rng[0]), float(rng[1])) if rng else None
        recent, cue = (_decode(state.get(key), h, w) for key in ("recent", "cue"))
        pace = state.get("pace")
        return Saved(gray.copy(), depth.astype(np.float32), int(state.get("age", 1000)),
                     float(pace) if isinstance(pace, (int, float)) else None, rng,
                     bool(state.get("still", False)), recent, cue)
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def _encode(array: np.ndarray) -> str:
    return base64.b64encode(array.tobytes()).decode()


def _decode(text: str | None, h: int, w: int) -> np.ndarray | None:
    """The (h, w) float16 map ``_encode`` wrote, as float32; None for None."""
    if text is None:
        return None
    return np.frombuffer(base64.b64decode(text), np.float16).reshape(h, w).astype(np.float32)
