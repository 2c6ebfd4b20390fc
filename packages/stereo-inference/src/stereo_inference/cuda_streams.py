"""The depth and render stages on CUDA streams of their own.

Each stage runs in its own thread (``stages.run_stages``). On one stream, every
host sync of the depth stage (the grey frames the flow needs, the normaliser's
percentiles) also waited for the render kernels queued before it, so on a GPU
the two stages took turns. On two streams each waits for its own work only,
and the GPU runs both at once where they fit. A batch crosses from one to the
other with an event; the tensors the depth stage made and the render reads are
marked as used on the render's stream (``record_stream``), so the allocator
does not give their memory back to the depth stage while the render still
reads it. Elsewhere (a CPU; ``ENABLED`` off) every call here does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from stereo_inference.arrays import device_type, is_tensor

ENABLED = True


class StageStreams:
    """One CUDA stream for the depth stage, one for the render, on ``device``."""

    def __init__(self, device) -> None:
        self.depth = self.render = None
        if ENABLED and device_type(device) == "cuda":
            import torch

            self.depth, self.render = torch.cuda.Stream(device), torch.cuda.Stream(device)

    def for_depth(self):
        """Run the enclosed depth work on the depth stream (``handed_over`` after it)."""
        return nullcontext() if self.depth is None else _on(self.depth)

    def handed_over(self, batch) -> None:
        """Mark the depth stage's work on ``batch`` so far as what the render waits for."""
        if self.depth is not None:
            import torch

            batch.ready = torch.cuda.Event()
            batch.ready.record(self.depth)

    @contextmanager
    def for_render(self, batch) -> Iterator[None]:
        """Run the enclosed render of ``batch`` on the render stream, after its depth."""
        if self.render is None:
            yield
            return
        with _on(self.render):
            if batch.ready is not None:
                self.render.wait_event(batch.ready)
            for made in (batch.depth, batch.on_device):
                if is_tensor(made):
                    made.record_stream(self.render)
            yield


def _on(stream):
    import torch

    return torch.cuda.stream(stream)
