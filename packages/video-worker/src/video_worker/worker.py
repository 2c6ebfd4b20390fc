"""A wired video-worker: its consumers, its janitor, and synchronous entry points.

``run()`` is the service: inference consumers on the video-worker queue (one
for the in-process engine, ``inference_max_in_flight`` for remote backends, so
each in-flight invocation is tied to its own message), one consumer on the
segment-output queue, and a janitor thread every ``janitor_interval_s``; all
drain on SIGTERM through ``shared_types.consumer.run_consumers``.

``process_inference_once`` / ``process_segment_output_once`` receive and settle
one message with the same classification as the loop, for callers that drive
the pipeline in-process (local-stack's ``convert``).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from shared_types.backend_loader import receive_wait_s
from shared_types.consumer import Consumer, ConsumerConfig, run_consumers
from shared_types.models import Message
from shared_types.ports import Backend, Queue

from video_worker.inference import InferenceDeps, handle_inference_message
from video_worker.inference_backend import InferenceBackend, InferenceResult
from video_worker.janitor import JanitorReport, run_janitor_pass
from video_worker.segment_output import handle_segment_output_message
from video_worker.settings import VideoWorkerSettings

log = logging.getLogger(__name__)


@dataclass
class VideoWorker:
    backend: Backend
    inference: InferenceBackend
    settings: VideoWorkerSettings
    stop: threading.Event

    # -- handlers (pure: no ack, no loop) -------------------------------------------
    def handle_inference(self, message: Message) -> list[InferenceResult]:
        """Convert the segments of one video-worker queue message (see inference.py)."""
        return handle_inference_message(message, InferenceDeps(self.backend, self.inference))

    def handle_segment_output(self, message: Message) -> int:
        """Record the completions of one segment-output message (see segment_output.py)."""
        return handle_segment_output_message(message, self.backend)

    # -- consumers --------------------------------------------------------------------
    def consumer_config(self) -> ConsumerConfig:
        return ConsumerConfig(wait_s=receive_wait_s(self.settings),
                              visibility_s=self.settings.visibility_s)

    def inference_consumers(self) -> list[Consumer]:
        count = 1 if self.settings.inference_backend == "local" else (
            self.settings.inference_max_in_flight)
        return [Consumer(self.backend.video_queue, self.handle_inference,
                         self.consumer_config(), stop=self.stop) for _ in range(count)]

    def segment_output_consumer(self) -> Consumer:
        return Consumer(self.backend.segment_output_queue, self.handle_segment_output,
                        self.consumer_config(), stop=self.stop)

    def consumers(self) -> list[Consumer]:
        return [*self.inference_consumers(), self.segment_output_consumer()]

    # -- synchronous entry points -----------------------------------------------------
    def process_inference_once(self, *, wait_s: float = 0) -> bool:
        """Receive one video-worker message and settle it; False if none came."""
        return self._process_once(self.inference_consumers()[0], wait_s)

    def process_segment_output_once(self, *, wait_s: float = 0) -> bool:
        """Receive one segment-output message and settle it; False if none came."""
        return self._process_once(self.segment_output_consumer(), wait_s)

    def _process_once(self, consumer: Consumer, wait_s: float) -> bool:
        queue: Queue = consumer.queue
        messages = queue.receive(max_messages=1, wait_s=wait_s,
                                 visibility_s=self.settings.visibility_s)
        for message in messages:
            consumer.process(message)
        return bool(messages)

    # -- janitor ----------------------------------------------------------------------
    def janitor_pass(self) -> JanitorReport:
        """One janitor pass over every in-progress job (see janitor.py)."""
        s = self.settings
        return run_janitor_pass(
            self.backend, stuck_after_s=s.stuck_after_s,
            max_segment_attempts=s.max_segment_attempts, max_resends=s.max_resends,
            upload_timeout_s=s.upload_timeout_s)

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
