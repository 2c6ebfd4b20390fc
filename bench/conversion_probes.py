"""Watching a conversion from outside, for the benches: how late a thread gets
the GIL while it runs (``GilProbe``), and when each of its steps first ran
(``StartupTrace``). Used by ``gpu_stages.py`` (``--gil-probe``, ``--startup``).
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Self


class GilProbe:
    """A thread that asks for the GIL every millisecond (a 1 ms sleep, then a
    clock read) and records how late it got it: the wake-up's own latency plus
    the wait for a GIL another thread holds. Compared with the same probe on an
    idle process, how much the conversion's Python threads queue on the GIL."""

    def __init__(self) -> None:

        self.late: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            start = time.perf_counter()
            time.sleep(0.001)
            self.late.append(time.perf_counter() - start - 0.001)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> dict:
        late = sorted(self.late) or [0.0]
        return {"wakes": len(late), "mean_ms": round(1000 * statistics.fmean(late), 3),
                "p90_ms": round(1000 * late[int(0.9 * (len(late) - 1))], 3),
                "max_ms": round(1000 * late[-1], 3)}


class StartupTrace:
    """When each step of one conversion first began and ended, in seconds from
    the call: the engine's functions wrapped where ``convert`` looks them up
    (the checks of the file, the model, the decoder's start -- ``_open`` begins
    before the codec opens, NVDEC's included, and ends with the last frame --
    and its first batch, the encoder's opening, the first depth, render and
    write, the flush)."""

    def __init__(self, converting) -> None:
        from stereo_inference.decode import FrameReader
        from stereo_inference.encode import StereoEncoder
        from stereo_inference.synthesis import StereoRenderer

        self.steps: dict[str, list] = {}
        self.t0 = 0.0
        self._wrapped = []
        for owner, name in [(converting, "continuous_source"), (converting, "probe_video"),
                            (converting, "ensure_installed"), (converting, "load_estimator"),
                            (converting, "source_streams"), (converting, "add_st3d"),
                            (converting.nvdec, "usable"), (FrameReader, "_open"),
                            (FrameReader, "_put"),
                            (StereoRenderer, "__init__"), (StereoRenderer, "estimate"),
                            (StereoRenderer, "render"), (StereoEncoder, "__init__"),
                            (StereoEncoder, "write"), (StereoEncoder, "close")]:
            if hasattr(owner, name):
                self._wrap(owner, name)

    def _wrap(self, owner, name: str) -> None:
        original = getattr(owner, name)
        label = f"{getattr(owner, '__name__', '?').rsplit('.', 1)[-1]}.{name}"

        def traced(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                if label not in self.steps and self.t0:
                    self.steps[label] = [round(start - self.t0, 4),
                                         round(time.perf_counter() - self.t0, 4)]

        setattr(owner, name, traced)
        self._wrapped.append((owner, name, original))

    def __enter__(self) -> Self:
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        for owner, name, original in self._wrapped:
            setattr(owner, name, original)

    def ordered(self) -> dict[str, list]:
        return dict(sorted(self.steps.items(), key=lambda kv: kv[1][0]))
