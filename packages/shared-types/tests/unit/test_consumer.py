import json
import threading

from shared_types.consumer import Consumer, ConsumerConfig
from shared_types.errors import InvalidMediaError, MalformedMessageError, TransientError
from shared_types.testing.memory import MemoryQueue

FAST = ConsumerConfig(wait_s=0, visibility_s=5, backoff_base_s=0.01, backoff_max_s=0.01)


def consume_once(queue, handler, **kw):
    consumer = Consumer(queue, handler, FAST, **kw)
    for message in queue.receive(visibility_s=5):
        consumer.process(message)


def test_a_handled_message_is_acknowledged():
    q = MemoryQueue()
    q.send("{}")
    seen = []
    consume_once(q, lambda m: seen.append(m.body))
    assert seen == ["{}"]
    assert q.stats().visible + q.stats().in_flight == 0


def test_a_malformed_message_is_dead_lettered_at_once_with_its_reason():
    q = MemoryQueue(max_receives=5)
    q.send("not json")

    def handler(m):
        raise MalformedMessageError("body is not JSON")

    consume_once(q, handler)
    assert q.stats().dead_letters == 1
    assert q.stats().visible + q.stats().in_flight == 0


def test_a_permanent_failure_is_reported_then_acknowledged():
    q = MemoryQueue()
    q.send(json.dumps({"job_id": "j1"}))
    reported = []

    def handler(m):
        raise InvalidMediaError("not a video")

    consume_once(q, handler, on_permanent=lambda m, exc: reported.append(str(exc)))
    assert reported == ["not a video"]
    assert q.stats().dead_letters == 0
    assert q.stats().visible + q.stats().in_flight == 0


def test_a_transient_failure_is_redelivered_until_dead_lettered():
    q = MemoryQueue(max_receives=2)
    q.send("{}")
    attempts = []

    def handler(m):
        attempts.append(m.receive_count)
        raise TransientError("throttled")

    for _ in range(6):
        consume_once(q, handler)
        threading.Event().wait(0.03)
    assert attempts == [1, 2]
    assert q.stats().dead_letters == 1


def test_stop_drains_the_loop():
    q = MemoryQueue()
    stop = threading.Event()
    consumer = Consumer(q, lambda m: stop.set(), ConsumerConfig(wait_s=0.05), stop=stop)
    q.send("{}")
    t = threading.Thread(target=consumer.run)
    t.start()
    t.join(timeout=5)
    assert not t.is_alive()
    assert q.stats().visible + q.stats().in_flight == 0
