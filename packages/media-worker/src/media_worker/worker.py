"""The media worker: two consumers (chunking, reassembly) over the pure handlers.

The loop itself is shared_types.consumer; this module only adapts messages to
handlers, turns permanent failures into ``failed`` jobs, and offers one-shot
processing for in-process drivers (local-stack's ``convert``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from shared_types.consumer import Consumer, ConsumerConfig, run_consumers
from shared_types.errors import LeaseLostError, MalformedMessageError, PermanentError
from shared_types.events import parse_s3_event_body
from shared_types.job_failure import fail_job_for as fail_job
from shared_types.models import Message

from media_worker import chunking, reassembly
from media_worker.deps import MediaDeps
from media_worker.errors import ReassemblyBusyError, RetriesExhaustedError

log = logging.getLogger(__name__)

# Another worker holds (or took over) the job: a duplicate giving up must not fail it.
SOMEONE_ELSE_WORKS = (ReassemblyBusyError, LeaseLostError)


@dataclass
class MediaWorker:
    deps: MediaDeps
    config: ConsumerConfig = field(default_factory=ConsumerConfig)
    max_attempts: int = 5  # a transient failure on this receive fails the job for good

    # --- message handlers (what each Consumer calls) -------------------------

    def handle_chunking_message(self, message: Message) -> None:
        """Chunk every source an S3 event names; one bad source fails only its job.
        Raises MalformedMessageError for a body that is not an S3 event, and
        re-raises transient errors for redelivery."""
        for record in parse_s3_event_body(message.body):
            try:
                chunking.handle_source_uploaded(record, self.deps)
            except MalformedMessageError:
                raise
            except PermanentError as exc:
                for job_id in chunking.job_ids_of([record]):
                    fail_job(self.deps.backend.jobs, job_id, chunking.STAGE, exc)
            except Exception as exc:
                self._fail_if_last_attempt(message, chunking.job_ids_of([record]),
                                           chunking.STAGE, exc)
                raise

    def handle_reassembly_message(self, message: Message) -> None:
        """Reassemble the job a message names. Raises like handle_reassembly."""
        try:
            reassembly.handle_reassembly(message, self.deps)
        except PermanentError:
            raise  # on_permanent fails the job
        except Exception as exc:
            self._fail_if_last_attempt(
                message, [reassembly.parse_reassembly_message(message)], reassembly.STAGE, exc)
            raise

    def on_reassembly_permanent(self, message: Message, exc: PermanentError) -> None:
        """Consumer hook: a permanent reassembly failure fails the job."""
        fail_job(self.deps.backend.jobs, reassembly.parse_reassembly_message(message),
                 reassembly.STAGE, exc)

    def on_chunking_permanent(self, message: Message, exc: PermanentError) -> None:
        """Consumer hook: a permanent failure outside one record fails its jobs."""
        for job_id in chunking.source_job_ids(message):
            fail_job(self.deps.backend.jobs, job_id, chunking.STAGE, exc)

    def _fail_if_last_attempt(self, message: Message, job_ids: list[str], stage: str,
                              exc: Exception) -> None:
        if message.receive_count < self.max_attempts or isinstance(exc, SOMEONE_ELSE_WORKS):
            return
        reason = RetriesExhaustedError(
            f"The {stage} step kept failing after {message.receive_count} attempts "
            f"(last error: {exc}).")
        for job_id in job_ids:
            fail_job(self.deps.backend.jobs, job_id, stage, reason)

    # --- wiring ---------------------------------------------------------------

    def consumers(self) -> list[Consumer]:
        """One consumer per queue, sharing the drain event."""
        backend = self.deps.backend
        chunker = Consumer(backend.chunking_queue, self.handle_chunking_message, self.config,
                           on_permanent=self.on_chunking_permanent)
        joiner = Consumer(backend.reassembly_queue, self.handle_reassembly_message, self.config,
                          on_permanent=self.on_reassembly_permanent, stop=chunker.stop)
        return [chunker, joiner]

    def run(self, *, install_signals: bool = True) -> None:
        """Consume both queues until SIGTERM/SIGINT, then drain and return."""
        run_consumers(self.consumers(), install_signals=install_signals)

    def process_chunking_once(self, *, wait_s: float = 0) -> bool:
        """Receive and settle at most one chunking message; True if there was one."""
        return self._process_once(self.consumers()[0], wait_s)

    def process_reassembly_once(self, *, wait_s: float = 0) -> bool:
        """Receive and settle at most one reassembly message; True if there was one."""
        return self._process_once(self.consumers()[1], wait_s)

    def _process_once(self, consumer: Consumer, wait_s: float) -> bool:
        messages = consumer.queue.receive(max_messages=1, wait_s=wait_s,
                                          visibility_s=self.config.visibility_s)
        for message in messages:
            consumer.process(message)
        return bool(messages)
