"""A state machine of the whole pipeline against an adversary (for property tests).

The real video-worker (inference + segment-output consumers, janitor), the real
media-worker reassembly handler (with a byte-joining stand-in for ffmpeg) and
the real Retry run on the in-memory backend; chunking is simulated through the
same ports (the real one needs ffmpeg and is covered by media-worker's tests).
Between any two steps the adversary may crash a worker mid-message or
mid-reassembly, duplicate a message, make the next send fail, let leases expire
(advance the clock) or press Retry. Invariants: after a bounded number of
sweeps every job is in exactly one terminal state; a failed job says why; a
completed job's final video is its own source's segments, converted, in order.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from pathlib import Path

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from media_worker.bootstrap import build_worker as build_media_worker
from media_worker.reassembly import handle_reassembly, parse_reassembly_message
from media_worker.settings import MediaWorkerSettings
from shared_types import keys
from shared_types.errors import TransientStoreError
from shared_types.events import build_s3_event_body, parse_s3_event_body
from shared_types.job_failure import fail_job
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode
from shared_types.ports import Backend
from shared_types.reassembly_trigger import trigger_reassembly_if_ready
from shared_types.retry import retry_job
from shared_types.testing.memory import (
    MemoryJobStore,
    MemoryQueue,
    MemoryReassemblyLock,
    MemorySegmentCompletionStore,
    MemorySegmentStatusStore,
    MemoryStorage,
    memory_backend,
)
from video_worker.bootstrap import build_worker as build_video_worker
from video_worker.inference_backend import InferenceResult
from video_worker.janitor import run_janitor_pass
from video_worker.settings import VideoWorkerSettings

STUCK_S, VISIBILITY_S, LEASE_S = 100.0, 30.0, 20.0
MAX_ATTEMPTS, MAX_RESENDS = 3, 3


class Clock:
    """Real time plus what the adversary let pass (jobs stamp real time)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


class FlakyQueue:
    """A MemoryQueue whose next ``fail_sends`` sends raise (queue unreachable)."""

    def __init__(self, inner: MemoryQueue) -> None:
        self._inner, self.fail_sends = inner, 0
        self.name = inner.name

    def send(self, body: str, *, delay_s: float = 0) -> str:
        if self.fail_sends:
            self.fail_sends -= 1
            raise TransientStoreError(f"{self.name} unreachable")
        return self._inner.send(body, delay_s=delay_s)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


class Crash(Exception):
    """A worker process dies here (nothing after this line runs)."""


class JoiningRunner:
    """ffmpeg stand-in: concat joins the listed files' bytes; any other run copies."""

    def __init__(self) -> None:
        self.crash = False

    def run(self, args, *, on_tick=None, what="ffmpeg"):
        first = Path(args[args.index("-i") + 1])
        if self.crash:
            raise Crash(what)
        if "concat" not in args:
            Path(args[-1]).write_bytes(first.read_bytes())
            return
        parts = [line.split("'")[1] for line in first.read_text().splitlines()[1:]]
        Path(args[-1]).write_bytes(b"".join(Path(p).read_bytes() for p in parts))


class ConvertingInference:
    """Inference stand-in: the output is the segment's bytes, marked converted; the
    output bucket's event is raised like S3 would (memory storage raises none)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def convert(self, payload, output_key, params, on_progress=None):
        data = self.backend.input_storage.get_bytes(payload.key)
        self.backend.output_storage.put_bytes(output_key, b"[" + data + b"]")
        self.backend.segment_output_queue.send(build_s3_event_body(
            self.backend.output_storage.bucket, output_key, size=len(data) + 2))
        return InferenceResult(output_key=output_key, frames=1)


def clocked_backend(clock: Clock) -> Backend:
    def queue(name: str) -> FlakyQueue:
        return FlakyQueue(MemoryQueue(name, max_receives=5, clock=clock))

    return dataclasses.replace(
        memory_backend(), jobs=MemoryJobStore(), completions=MemorySegmentCompletionStore(),
        segment_status=MemorySegmentStatusStore(), reassembly=MemoryReassemblyLock(clock=clock),
        chunking_queue=queue("chunking"), video_queue=queue("video-worker"),
        segment_output_queue=queue("segment-output"), reassembly_queue=queue("reassembly"),
        input_storage=MemoryStorage("input"), output_storage=MemoryStorage("output"))


def expected_final(source: bytes, total: int) -> bytes:
    return b"".join(b"[" + source + b"|%d" % i + b"]" for i in range(total))


QUEUES = ("chunking", "video-worker", "segment-output", "reassembly")


class Pipeline(RuleBasedStateMachine):
    def make_backend(self, clock: Clock) -> Backend:
        """The ports under test (``self.tmp`` is a fresh folder); subclasses swap in
        SQLite (integration suite)."""
        return clocked_backend(clock)

    @initialize(work_dir=st.just(None))
    def start(self, work_dir) -> None:
        import tempfile

        self.tmp = tempfile.TemporaryDirectory(prefix="machine-")
        self.clock = Clock()
        self.backend = self.make_backend(self.clock)
        self.video = build_video_worker(
            VideoWorkerSettings(_env_file=None, stuck_after_s=STUCK_S,
                                visibility_s=VISIBILITY_S, max_segment_attempts=MAX_ATTEMPTS,
                                max_resends=MAX_RESENDS),
            self.backend, inference=ConvertingInference(self.backend))
        media = build_media_worker(MediaWorkerSettings(
            _env_file=None, work_dir=Path(self.tmp.name), visibility_s=VISIBILITY_S,
            lease_s=LEASE_S, max_attempts=MAX_ATTEMPTS), backend=self.backend)
        self.runner = JoiningRunner()
        self.media = dataclasses.replace(media, deps=dataclasses.replace(
            media.deps, runner=self.runner))
        self.sources: dict[str, tuple[bytes, int]] = {}
        self.ids = itertools.count()

    def teardown(self) -> None:
        if hasattr(self, "tmp"):
            self.tmp.cleanup()

    # -- the person ---------------------------------------------------------------------
    @precondition(lambda self: len(self.sources) < 3)
    @rule(total=st.integers(1, 3))
    def upload(self, total: int) -> None:
        job_id = f"job-{next(self.ids)}"
        source = f"source-of-{job_id}".encode()
        self.backend.jobs.create(Job(job_id=job_id, mode=OutputMode.ANAGLYPH))
        info = self.backend.input_storage.put_bytes(keys.source_key(job_id), source)
        self.sources[job_id] = (source, total)
        self._send(self.backend.chunking_queue, build_s3_event_body(
            self.backend.input_storage.bucket, info.key, size=info.size))

    @rule(data=st.data())
    def press_retry(self, data) -> None:
        failed = [j for j in self.sources if self.backend.jobs.get(j).status == JobStatus.FAILED]
        if failed:
            job = self.backend.jobs.get(data.draw(st.sampled_from(failed)))
            try:
                retry_job(self.backend, job)
            except TransientStoreError:
                pass  # the person sees an error; the sweep owns the job now

    # -- the workers --------------------------------------------------------------------
    @rule(name=st.sampled_from(QUEUES))
    def deliver(self, name: str) -> None:
        if name == "chunking":
            self._chunk_one()
        elif name == "video-worker":
            self.video.process_inference_once()
        elif name == "segment-output":
            self.video.process_segment_output_once()
        else:
            self.media.process_reassembly_once()

    @rule()
    def janitor(self) -> None:
        self._janitor()  # run_janitor_pass logs and skips a job whose repair fails

    def fail_a_job(self) -> None:
        """A step gave up on the first job (as a permanent error would); scenario set-up."""
        fail_job(self.backend.jobs, "job-0", code="inference_failed", stage="inference",
                 message="the engine refused a segment")

    # -- the adversary ------------------------------------------------------------------
    @rule(name=st.sampled_from(QUEUES))
    def crash_holding_a_message(self, name: str) -> None:
        self.backend.queue(name).receive(visibility_s=VISIBILITY_S)  # never settled

    @rule()
    def crash_the_reassembler_mid_join(self) -> None:
        [message] = self.backend.reassembly_queue.receive(visibility_s=VISIBILITY_S) or [None]
        if message is None:
            return
        self.runner.crash = True
        try:
            handle_reassembly(parse_reassembly_message(message), self.media.deps)
        except Crash:
            pass
        except Exception:  # noqa: BLE001 - a handler error before the crash point
            pass
        finally:
            self.runner.crash = False

    @rule(name=st.sampled_from(QUEUES))
    def duplicate_a_message(self, name: str) -> None:
        queue = self.backend.queue(name)
        for message in queue.receive(visibility_s=0.0):
            queue._inner.send(message.body)  # the adversary's copy always arrives

    @rule(name=st.sampled_from(QUEUES), n=st.integers(1, 2))
    def fail_the_next_sends(self, name: str, n: int) -> None:
        self.backend.queue(name).fail_sends = n

    @rule(seconds=st.sampled_from([LEASE_S + 1, STUCK_S + 1]))
    def let_time_pass(self, seconds: float) -> None:
        self.clock.offset += seconds

    # -- invariants ---------------------------------------------------------------------
    @invariant()
    def completed_jobs_are_their_own_source_in_order(self) -> None:
        for job_id, (source, total) in getattr(self, "sources", {}).items():
            job = self.backend.jobs.get(job_id)
            if job.status == JobStatus.COMPLETED:
                final = self.backend.output_storage.get_bytes(job.final_key)
                assert final == expected_final(source, total), job_id
            if job.status == JobStatus.FAILED:
                assert job.error is not None
                assert job.error.message

    def check_every_job_ends(self) -> None:
        """Without the adversary, a bounded number of sweeps ends every job."""
        for queue in QUEUES:
            self.backend.queue(queue).fail_sends = 0
        for _ in range(2 * (MAX_RESENDS + MAX_ATTEMPTS) + 4):
            self._drain()
            if all(self.backend.jobs.get(j).status.is_final for j in self.sources):
                return
            self.clock.offset += STUCK_S + VISIBILITY_S + 1
            self._janitor()
        stuck = {j: self.backend.jobs.get(j).status for j in self.sources
                 if not self.backend.jobs.get(j).status.is_final}
        raise AssertionError(f"jobs left without an answer: {stuck}")

    # -- helpers ------------------------------------------------------------------------
    def _send(self, queue, body: str) -> None:
        try:
            queue.send(body)
        except TransientStoreError:
            pass  # a lost event: the sweep must notice

    def _janitor(self) -> None:
        run_janitor_pass(self.backend, stuck_after_s=STUCK_S, max_segment_attempts=MAX_ATTEMPTS,
                         max_resends=MAX_RESENDS, now=self.clock())

    def _drain(self) -> None:
        for _ in range(200):
            worked = (self._chunk_one() | self.video.process_inference_once()
                      | self.video.process_segment_output_once()
                      | self.media.process_reassembly_once())
            if not worked:
                return

    def _chunk_one(self) -> bool:
        """The chunker's effects through the ports (the real one needs ffmpeg)."""
        queue = self.backend.chunking_queue
        messages = queue.receive(visibility_s=VISIBILITY_S)
        for message in messages:
            for record in parse_s3_event_body(message.body):
                self._chunk(keys.parse_source_key(record.key))
            queue.delete(message)
        return bool(messages)

    def _chunk(self, job_id: str) -> None:
        backend, (_, total) = self.backend, self.sources[job_id]
        job = backend.jobs.get(job_id)
        if job.status not in (JobStatus.CREATED, JobStatus.CHUNKING_IN_PROGRESS):
            return
        source = backend.input_storage.get_bytes(keys.source_key(job_id))
        backend.jobs.update(job_id, JobUpdate(status=JobStatus.CHUNKING_IN_PROGRESS))
        for i in range(total):
            key = keys.segment_key(job_id, i, total, job.mode)
            info = backend.input_storage.put_bytes(key, source + b"|%d" % i)
            self._send(backend.video_queue, build_s3_event_body(
                backend.input_storage.bucket, key, size=info.size))
        backend.jobs.update(job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                              total_segments=total),
                            expected_status=[JobStatus.CHUNKING_IN_PROGRESS])
        try:
            trigger_reassembly_if_ready(backend, job_id)
        except TransientStoreError:
            pass  # the trigger row is written, its send lost: the sweep re-sends


class PipelineWithEnding(Pipeline):
    def teardown(self) -> None:
        try:
            if hasattr(self, "sources"):
                self.check_every_job_ends()
                self.completed_jobs_are_their_own_source_in_order()
        finally:
            super().teardown()


def property_test(machine_class: type[Pipeline], *, examples: int, steps: int):
    """The pytest TestCase of ``machine_class`` with modest, load-tolerant settings."""
    from hypothesis import HealthCheck, settings

    case = machine_class.TestCase
    case.settings = settings(max_examples=examples, stateful_step_count=steps, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow,
                                                    HealthCheck.filter_too_much])
    return case


def replay(*steps, machine_class: type[PipelineWithEnding] = PipelineWithEnding) -> dict:
    """Run fixed ``(rule, *args)`` steps, then the ending checks; the jobs by id."""
    machine = machine_class()
    machine.start(None)
    try:
        for name, *args in steps:
            getattr(machine, name)(*args)
        machine.check_every_job_ends()
        machine.completed_jobs_are_their_own_source_in_order()
        return {j: machine.backend.jobs.get(j) for j in machine.sources}
    finally:
        machine.teardown()


class FirstChoice:
    """Stands in for hypothesis' ``data`` in a replay: always the first choice."""

    def draw(self, strategy):
        return strategy.example() if not hasattr(strategy, "elements") else strategy.elements[0]
