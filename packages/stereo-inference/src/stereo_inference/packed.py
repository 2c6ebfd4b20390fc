"""Small arrays inside JSON: ``depth_state`` carries maps and frames between segments."""

from __future__ import annotations

import base64

import numpy as np


def pack(array: np.ndarray) -> dict:
    """A 2-D ``array`` as JSON-safe data (its dtype is the reader's to know)."""
    return {"shape": list(array.shape), "data": base64.b64encode(array.tobytes()).decode()}


def unpack(data: object, dtype) -> np.ndarray | None:
    """The 2-D array ``pack`` wrote, as ``dtype``; None when absent or malformed."""
    try:
        h, w = (int(v) for v in data["shape"])
        return np.frombuffer(base64.b64decode(data["data"]), dtype).reshape(h, w).copy()
    except (KeyError, TypeError, ValueError):
        return None
