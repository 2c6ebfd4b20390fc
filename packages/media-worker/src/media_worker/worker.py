"""The media worker: two routes (chunking, reassembly) on the shared consumer loop.

The loop (``shared_types.consumer``) owns decoding, retries, dead-lettering and
failing jobs; this module only says what each queue carries and which pure
handler takes it, and offers one-shot processing for in-process drivers
(local-stack's ``convert``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import partial

from shared_types.consumer import Consumer, ConsumerConfig, Route, run_consumers
from shared_types.models import ClipMessage, S3EventRecord
from shared_types.preview import parse_chunking_body
from shared_types.segment_retention import fail_for_and_release

from media_worker import chunking, reassembly
from media_worker.deps import MediaDeps

log = logging.getLogger(__name__)


@dataclass
class MediaWorker:
    deps: MediaDeps
    config: ConsumerConfig = field(default_factory=ConsumerConfig)

    def chunking_route(self) -> Route[S3EventRecord | ClipMessage]:
        """Each record of an S3 event is one source to chunk (a bad one fails only
        its job); a clip message is one clip job to cut and chunk."""
        return Route(chunking.STAGE, lambda m: parse_chunking_body(m.body),
                     partial(chunking.handle_chunk_request, deps=self.deps),
                     chunking.request_job_id)

    def reassembly_route(self) -> Route[str]:
        """A reassembly message carries one job id."""
        return Route(reassembly.STAGE, lambda m: [reassembly.parse_reassembly_message(m)],
                     partial(reassembly.handle_reassembly, deps=self.deps), lambda job_id: job_id)

    def consumers(self) -> list[Consumer]:
        """One consumer per queue, sharing the drain event."""
        backend = self.deps.backend
        fail = partial(fail_for_and_release, backend)
        chunker = Consumer(backend.chunking_queue, self.chunking_route(), self.config, fail)
        joiner = Consumer(backend.reassembly_queue, self.reassembly_route(), self.config, fail,
                          stop=chunker.stop)
        return [chunker, joiner]

    def run(self, *, install_signals: bool = True) -> None:
        """Consume both queues until SIGTERM/SIGINT, then drain and return."""
        run_consumers(self.consumers(), install_signals=install_signals)

    def process_chunking_once(self, *, wait_s: float = 0) -> bool:
        """Receive and settle at most one chunking message; True if there was one."""
        return self.consumers()[0].process_once(wait_s=wait_s)

    def process_reassembly_once(self, *, wait_s: float = 0) -> bool:
        """Receive and settle at most one reassembly message; True if there was one."""
        return self.consumers()[1].process_once(wait_s=wait_s)
