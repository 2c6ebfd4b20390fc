"""A wired video-worker: its consumers, its janitor, and synchronous entry points.

``run()`` is the service: inference consumers on the video-worker queue (one
for the in-process engine, ``inference_max_in_flight`` for remote backends, so
each in-flight invocation is tied to its own message), one consumer on the
segment-output queue, and a janitor thread every ``janitor_interval_s``; all
drain on SIGTERM through ``shared_types.consumer.run_consumers``.

``process_inference_once`` / ``process_segment_output_once`` receive and settle
one message with the same classification as the loop, for callers that drive
the pipeline step by step in one process (integration tests and local-stack's
lifecycle model test; ``stereo-spot convert`` runs worker processes instead).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from functools import partial

from shared_types.backend_loader import receive_wait_s
from shared_types.consumer import Consumer, ConsumerConfig, Route, run_consumers
from shared_types.models import SegmentOutput, SegmentPayload
from shared_types.ports import Backend, Queue
from shared_types.segment_retention import fail_for_and_release

from video_worker.inference import STAGE as INFERENCE_STAGE
from video_worker.inference import InferenceDeps, convert_segment, decode_segment_uploads
from video_worker.inference_backend import InferenceBackend
from video_worker.janitor import JanitorReport, run_janitor_pass
from video_worker.segment_output import STAGE as SEGMENT_OUTPUT_STAGE
from video_worker.segment_output import decode_segment_outputs, record_segment_output
from video_worker.settings import VideoWorkerSettings

log = logging.getLogger(__name__)


@dataclass
class VideoWorker:
    backend: Backend
    inference: InferenceBackend
    settings: VideoWorkerSettings
    stop: threading.Event

    # -- routes (decode + pure handler; the consumer loop owns the failure policy) --------
    def inference_route(self) -> Route[SegmentPayload]:
        deps = InferenceDeps(self.backend, self.inference,
                             timeout_base_s=self.settings.conversion_timeout_base_s,
                             timeout_s_per_frame=self.settings.conversion_timeout_s_per_frame)
        return Route(INFERENCE_STAGE, decode_segment_uploads,
                     partial(convert_segment, deps=deps), lambda p: p.job_id)

    def segment_output_route(self) -> Route[SegmentOutput]:
        return Route(SEGMENT_OUTPUT_STAGE, decode_segment_outputs,
                     partial(record_segment_output, backend=self.backend), lambda o: o.job_id)

    # -- consumers --------------------------------------------------------------------
    def consumer_config(self) -> ConsumerConfig:
        return ConsumerConfig(wait_s=receive_wait_s(self.settings),
                              visibility_s=self.settings.visibility_s,
                              max_attempts=self.settings.max_segment_attempts)

    def _consumer(self, queue: Queue, route: Route) -> Consumer:
        return Consumer(queue, route, self.consumer_config(),
                        partial(fail_for_and_release, self.backend), stop=self.stop)

    def inference_consumers(self) -> list[Consumer]:
        count = 1 if self.settings.inference_backend == "local" else (
            self.settings.inference_max_in_flight)
        return [self._consumer(self.backend.video_queue, self.inference_route())
                for _ in range(count)]

    def segment_output_consumer(self) -> Consumer:
        return self._consumer(self.backend.segment_output_queue, self.segment_output_route())

    def consumers(self) -> list[Consumer]:
        return [*self.inference_consumers(), self.segment_output_consumer()]

    # -- synchronous entry points -----------------------------------------------------
    def process_inference_once(self, *, wait_s: float = 0) -> bool:
        """Receive one video-worker message and settle it; False if none came."""
        return self.inference_consumers()[0].process_once(wait_s=wait_s)

    def process_segment_output_once(self, *, wait_s: float = 0) -> bool:
        """Receive one segment-output message and settle it; False if none came."""
        return self.segment_output_consumer().process_once(wait_s=wait_s)

    # -- janitor ----------------------------------------------------------------------
    def janitor_pass(self) -> JanitorReport:
        """One janitor pass over every in-progress job (see janitor.py)."""
        s = self.settings
        return run_janitor_pass(
            self.backend, stuck_after_s=s.stuck_after_s,
            max_segment_attempts=s.max_segment_attempts, max_resends=s.max_resends,
            upload_timeout_s=s.upload_timeout_s, hold_timeout_s=s.hold_timeout_s)

    def run_janitor(self) -> None:
        """Run janitor passes every ``janitor_interval_s`` until ``stop`` is set."""
        while not self.stop.wait(self.settings.janitor_interval_s):
            try:
                report = self.janitor_pass()
            except Exception:  # a failed pass is retried on the next tick
                log.exception("janitor pass failed; retrying next interval")
                continue
            if any(report.model_dump().values()):
                log.warning("janitor repaired: %s", report.model_dump_json())

    # -- the service ------------------------------------------------------------------
    def run(self, *, install_signals: bool = True) -> None:
        """Consume both queues and run the janitor until SIGTERM/SIGINT (or ``stop``)."""
        janitor = threading.Thread(target=self.run_janitor, name="janitor", daemon=True)
        janitor.start()
        try:
            run_consumers(self.consumers(), install_signals=install_signals)
        finally:
            self.stop.set()
            janitor.join(timeout=5)
