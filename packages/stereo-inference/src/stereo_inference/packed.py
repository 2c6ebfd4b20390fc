"""Small arrays inside JSON: ``depth_state`` carries maps and frames between segments.

Maps wider than ``MAX_WIDTH`` (a learned model's depth at 518 px) travel
shrunk and come back at their size, so a state stays a few tens of kilobytes.
"""

from __future__ import annotations

import base64
from typing import Any

import cv2
import numpy as np

MAX_WIDTH = 128


def pack(array: np.ndarray) -> dict:
    """A 2-D ``array`` as JSON-safe data (its dtype is the reader's to know)."""
    h, w = array.shape
    if w > MAX_WIDTH:
        small = (MAX_WIDTH, max(1, round(h * MAX_WIDTH / w)))
        array = cv2.resize(array.astype(np.float32), small,
                           interpolation=cv2.INTER_AREA).astype(array.dtype)
    return {"size": [h, w], "shape": list(array.shape),
            "data": base64.b64encode(np.ascontiguousarray(array).tobytes()).decode()}


def unpack(data: Any, dtype) -> np.ndarray | None:
    """The 2-D array ``pack`` wrote, as ``dtype``, at its original size; None when
    absent or malformed."""
    try:
        h, w = (int(v) for v in data["shape"])
        array = np.frombuffer(base64.b64decode(data["data"]), dtype).reshape(h, w).copy()
        size = [int(v) for v in data.get("size", (h, w))]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if size != [h, w] and len(size) == 2 and min(size) > 0:
        array = cv2.resize(array.astype(np.float32), (size[1], size[0]),
                           interpolation=cv2.INTER_LINEAR).astype(dtype)
    return array
