"""The consumer loop owns the failure policy: decode, retry with backoff,
dead-letter, and failing the job (permanent error or attempts exhausted)."""

import json
import threading

from shared_types.consumer import Consumer, ConsumerConfig, Route
from shared_types.errors import (
    DiskFullError,
    InvalidMediaError,
    LeaseLostError,
    MalformedMessageError,
    OwnedElsewhereError,
    TransientError,
)
from shared_types.failure import failure_code
from shared_types.testing.memory import MemoryQueue

FAST = ConsumerConfig(wait_s=0, visibility_s=5, backoff_base_s=0.01, backoff_max_s=0.01)


def decode_jobs(message):
    try:
        return json.loads(message.body)["jobs"]
    except (ValueError, KeyError, TypeError) as exc:
        raise MalformedMessageError(f"not a jobs message: {exc}") from exc


def consumer(queue, handle, *, config=FAST, failed=None):
    route = Route("testing", decode_jobs, handle, lambda job_id: job_id)
    fail = (lambda job_id, stage, exc: failed.append((job_id, stage, str(exc)))) if (
        failed is not None) else None
    return Consumer(queue, route, config, fail)


def send(queue, *jobs):
    queue.send(json.dumps({"jobs": list(jobs)}))


def settled(queue):
    stats = queue.stats()
    return stats.visible + stats.in_flight == 0


def test_a_handled_message_is_acknowledged():
    q, seen = MemoryQueue(), []
    send(q, "j1", "j2")
    assert consumer(q, seen.append).process_once()
    assert seen == ["j1", "j2"]
    assert settled(q)


def test_a_malformed_message_is_dead_lettered_at_once_with_its_reason():
    q, seen = MemoryQueue(max_receives=5), []
    q.send("not json")
    consumer(q, seen.append).process_once()
    assert seen == []
    assert settled(q)
    assert q.stats().dead_letters == 1


def test_a_permanent_failure_fails_only_its_own_job_then_acknowledges():
    q, failed, seen = MemoryQueue(), [], []

    def handle(job_id):
        if job_id == "bad":
            raise InvalidMediaError("not a video")
        seen.append(job_id)

    send(q, "bad", "good")
    consumer(q, handle, failed=failed).process_once()
    assert failed == [("bad", "testing", "not a video")]
    assert seen == ["good"]
    assert settled(q)
    assert q.stats().dead_letters == 0


THREE_QUICK_ATTEMPTS = ConsumerConfig(wait_s=0, visibility_s=5, backoff_base_s=0.01,
                                      backoff_max_s=0.01, max_attempts=3)


def raising(error: type[Exception], message: str, attempts: list):
    """A handler that records each job it is given, then raises ``error(message)``."""
    def handle(job_id):
        attempts.append(job_id)
        raise error(message)
    return handle


def run_attempts(loop: Consumer, attempts: list, count: int = 3) -> None:
    """Poll ``loop`` until its handler ran ``count`` times."""
    while len(attempts) < count:
        loop.process_once(wait_s=0.05)


def test_a_transient_failure_is_retried_then_fails_the_job_on_the_last_attempt():
    q, failed, attempts = MemoryQueue(max_receives=10), [], []
    handle = raising(TransientError, "throttled", attempts)
    send(q, "j1")
    run_attempts(consumer(q, handle, config=THREE_QUICK_ATTEMPTS, failed=failed), attempts)
    assert failed == [("j1", "testing",
                       "The testing step kept failing after 3 attempts (last error: throttled).")]
    assert settled(q)
    assert q.stats().dead_letters == 1


def test_a_full_disk_on_the_last_attempt_fails_the_job_as_disk_full_with_where():
    q, codes, attempts = MemoryQueue(max_receives=10), [], []
    handle = raising(DiskFullError, "The disk is full: no space was left in /data.", attempts)
    send(q, "j1")
    run_attempts(Consumer(q, Route("testing", decode_jobs, handle, lambda job_id: job_id),
                          THREE_QUICK_ATTEMPTS,
                          lambda job_id, stage, exc: codes.append((failure_code(exc), str(exc)))),
                 attempts)
    assert attempts == ["j1"] * 3  # retried with backoff, then given up: no storm
    assert codes == [("disk_full", "The testing step kept failing after 3 attempts (last "
                                   "error: The disk is full: no space was left in /data.).")]
    assert settled(q)


def test_work_owned_elsewhere_is_retried_but_never_fails_the_job():
    q, failed, attempts = MemoryQueue(max_receives=3), [], []

    def handle(job_id):
        attempts.append(job_id)
        raise (OwnedElsewhereError if len(attempts) % 2 else LeaseLostError)("busy")

    send(q, "j1")
    loop = consumer(q, handle, config=ConsumerConfig(
        wait_s=0, visibility_s=5, backoff_base_s=0.01, backoff_max_s=0.01, max_attempts=1),
        failed=failed)
    while q.stats().dead_letters == 0:
        loop.process_once(wait_s=0.05)
    assert failed == [] and len(attempts) == 3  # the queue dead-letters after max receives


def test_a_message_whose_lease_was_lost_meanwhile_is_not_acknowledged():
    q = MemoryQueue(max_receives=5)
    send(q, "j1")
    lost, extend = threading.Event(), q.extend

    def watched_extend(message, visibility_s):
        try:
            extend(message, visibility_s)
        except LeaseLostError:
            lost.set()
            raise

    q.extend = watched_extend

    def handle(job_id):
        [m] = list(q._msgs.values())
        m["receipt"] = "taken-by-someone-else"  # another consumer holds it now
        assert lost.wait(10)  # the heartbeat noticed

    loop = consumer(q, handle, config=ConsumerConfig(wait_s=0, visibility_s=5, heartbeat_s=0.01))
    loop.process_once()
    assert loop.leases_lost == 1
    assert q.stats().visible + q.stats().in_flight == 1  # the new holder's to settle


def test_stop_drains_the_loop():
    q = MemoryQueue()
    stop = threading.Event()
    loop = consumer(q, lambda job_id: stop.set(), config=ConsumerConfig(wait_s=0.05))
    loop.stop = stop
    send(q, "j1")
    t = threading.Thread(target=loop.run)
    t.start()
    t.join(timeout=60)
    assert not t.is_alive()
    assert settled(q)


def test_a_retried_failure_is_logged_with_its_own_traceback_only_when_unexpected(caplog):
    q = MemoryQueue(max_receives=10)

    def handle(job_id):
        if job_id == "bug":
            raise KeyError("a bug")
        raise DiskFullError("The disk is full: no space was left in /data.")

    send(q, "bug")
    send(q, "full")
    loop = consumer(q, handle)
    with caplog.at_level("WARNING"):
        loop.process_once()
        loop.process_once()
    bug, full = [r for r in caplog.records if "retry in" in r.getMessage()]
    assert isinstance(bug.exc_info[1], KeyError)  # not "NoneType: None"
    assert full.exc_info is None  # our own error's message says it all
