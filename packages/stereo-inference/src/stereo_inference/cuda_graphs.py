"""Fixed-shape GPU work replayed from CUDA graphs.

The depth stage issues about a thousand small kernels a batch (the model's
layers, the stabiliser's per-frame fit); launching them one by one from
Python costs more CPU time than the GPU takes to run them, and that CPU time
is taken from the encoder beside it. ``Graphed`` records such a function once
per input signature (shapes, dtypes, device) as a CUDA graph and replays it:
one launch instead of hundreds, and the same kernels, so the same numbers.

A signature's first call runs eagerly (it warms cuBLAS and cuDNN up); its
second is captured and replayed, and every later one replayed. The inputs are
copied into the graph's own tensors and the output is copied out, so callers
keep ordinary tensors. What cannot be captured (an op that syncs with the
host, say) is logged once and runs eagerly from then on. Off a GPU, with
``ENABLED`` off, or on inputs that are not all CUDA tensors, ``Graphed``
calls its function as it is. Other threads keep using the GPU while a graph
is captured (``thread_local`` capture: only this thread's calls are recorded).

One ``Graphed`` may serve several conversions at once (a loaded model is
shared): its graphs' tensors are used by one caller at a time, under a lock,
and each caller's stream first waits for the previous caller's copy-out.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable

from stereo_inference.arrays import is_tensor

log = logging.getLogger(__name__)

ENABLED = True
# Signatures kept recorded per function (a batch size and a tail, typically;
# a long-lived worker meets other frame sizes: the least recently used goes).
MAX_GRAPHS = 4


class Graphed:
    """``fn`` (CUDA tensors in, one tensor out; no host syncs, no branching on
    values), replayed from a CUDA graph per input signature."""

    def __init__(self, fn: Callable, name: str) -> None:
        self.fn, self.name = fn, name
        self._graphs: OrderedDict[tuple, tuple] = OrderedDict()  # -> (inputs, output, graph)
        self._seen: set[tuple] = set()  # run eagerly once
        self._eager: set[tuple] = set()  # could not be captured
        self._pool = None  # one memory pool for all of this function's graphs
        self._lock = threading.Lock()
        self._done = None  # an event after the last caller's copy-out (its stream may differ)

    def __call__(self, *args):
        if not ENABLED or not all(is_tensor(a) and a.is_cuda for a in args):
            return self.fn(*args)
        key = tuple((tuple(a.shape), a.dtype, a.device) for a in args)
        with self._lock:
            entry = self._graphs.get(key)
            if entry is not None:
                self._graphs.move_to_end(key)
            elif key in self._seen and key not in self._eager:
                entry = self._capture(key, args)
            elif len(self._seen) > 16 * MAX_GRAPHS:  # (sizes met once, long ago)
                self._seen.clear()
            self._seen.add(key)
            if entry is not None:
                return self._replay(entry, args)
        return self.fn(*args)

    def _replay(self, entry: tuple, args):
        torch = sys.modules["torch"]
        inputs, output, graph = entry
        stream = torch.cuda.current_stream(args[0].device)
        if self._done is not None:
            stream.wait_event(self._done)
        for static, arg in zip(inputs, args, strict=True):
            static.copy_(arg)
        graph.replay()
        result = output.clone()  # the next replay overwrites ``output``
        done = torch.cuda.Event()
        done.record(stream)
        self._done = done
        return result

    @property
    def recorded(self) -> int:
        """How many signatures are replayed from a graph."""
        return len(self._graphs)

    def _capture(self, key: tuple, args) -> tuple | None:
        torch = sys.modules["torch"]
        if len(self._graphs) >= MAX_GRAPHS:
            if self._done is not None:  # no replay of the one let go may still run
                self._done.synchronize()
            self._graphs.popitem(last=False)
        inputs = [a.clone() for a in args]
        graph = torch.cuda.CUDAGraph()
        if self._pool is None:
            self._pool = torch.cuda.graph_pool_handle()
        try:
            with torch.cuda.graph(graph, pool=self._pool, capture_error_mode="thread_local"):
                output = self.fn(*inputs)
        except RuntimeError as exc:  # an op that cannot be captured: eager from now on
            log.warning("%s runs without a CUDA graph: %s", self.name, exc)
            self._eager.add(key)
            return None
        self._graphs[key] = entry = (inputs, output, graph)
        return entry
