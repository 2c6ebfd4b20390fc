"""Queue contract: leases, expiry, receive counting, dead letters, redrive, long poll.

The ``queue`` fixture must build a fresh, empty queue whose dead-letter
threshold is ``QUEUE_MAX_RECEIVES`` receives.
"""

from __future__ import annotations

import math
import threading
import time

import pytest

from shared_types.errors import LeaseLostError
from shared_types.testing.contracts import lease_s, wait_past  # noqa: F401  (fixture)

QUEUE_MAX_RECEIVES = 3


def long_wait(lease_s: float) -> int:
    """A long-poll wait (whole seconds, as SQS wants) that outlasts a short lease."""
    return max(2, math.ceil(lease_s * 3))


def test_send_then_receive_returns_the_body_once(queue):
    mid = queue.send("hello")
    [msg] = queue.receive(visibility_s=30)
    assert (msg.message_id, msg.body, msg.receive_count) == (mid, "hello", 1)
    assert msg.receipt
    assert queue.receive(visibility_s=30) == []


def test_receive_on_an_empty_queue_returns_nothing(queue):
    assert queue.receive(wait_s=0) == []


def test_receive_honours_max_messages(queue):
    for i in range(5):
        queue.send(f"m{i}")
    got = queue.receive(max_messages=3, visibility_s=30)
    assert 1 <= len(got) <= 3
    while len(got) < 5:
        more = queue.receive(max_messages=3, visibility_s=30)
        assert more, "every sent message must be receivable"
        got += more
    assert sorted(m.body for m in got) == [f"m{i}" for i in range(5)]


def test_deleted_message_never_comes_back(queue, lease_s):
    queue.send("x")
    [msg] = queue.receive(visibility_s=lease_s)
    queue.delete(msg)
    wait_past(lease_s)
    assert queue.receive(wait_s=0) == []
    assert queue.stats().visible == 0


def test_an_expired_lease_redelivers_with_a_higher_receive_count(queue, lease_s):
    queue.send("x")
    [first] = queue.receive(visibility_s=lease_s)
    [second] = queue.receive(wait_s=long_wait(lease_s), visibility_s=30)
    assert second.message_id == first.message_id
    assert second.receive_count == 2
    assert second.receipt != first.receipt


def test_a_stale_receipt_never_deletes_the_new_lease(queue, lease_s):
    queue.send("x")
    [stale] = queue.receive(visibility_s=lease_s)
    [current] = queue.receive(wait_s=long_wait(lease_s), visibility_s=lease_s)
    queue.delete(stale)
    [again] = queue.receive(wait_s=long_wait(lease_s), visibility_s=30)
    assert again.message_id == current.message_id
    queue.delete(again)
    assert queue.receive(wait_s=0) == []


def test_extend_with_a_stale_receipt_raises_lease_lost(queue, lease_s):
    queue.send("x")
    [stale] = queue.receive(visibility_s=lease_s)
    queue.receive(wait_s=long_wait(lease_s), visibility_s=30)
    with pytest.raises(LeaseLostError):
        queue.extend(stale, 30)


def test_extend_keeps_a_message_invisible_past_its_first_lease(queue, lease_s):
    queue.send("x")
    [msg] = queue.receive(visibility_s=lease_s)
    queue.extend(msg, 30)
    wait_past(lease_s)
    assert queue.receive(wait_s=0) == []
    queue.delete(msg)


def test_release_makes_the_message_visible_at_once(queue):
    queue.send("x")
    [msg] = queue.receive(visibility_s=60)
    queue.release(msg)
    [again] = queue.receive(wait_s=1, visibility_s=30)
    assert again.message_id == msg.message_id
    assert again.receive_count == 2


def test_past_max_receives_a_message_is_dead_lettered(queue, lease_s):
    mid = queue.send("poison")
    for n in range(1, QUEUE_MAX_RECEIVES + 1):
        [msg] = queue.receive(wait_s=long_wait(lease_s), visibility_s=lease_s)
        assert (msg.message_id, msg.receive_count) == (mid, n)
    wait_past(lease_s)
    assert queue.receive(wait_s=0) == []
    dead = queue.dead_letters()
    assert [(m.message_id, m.body) for m in dead] == [(mid, "poison")]


def test_explicit_dead_letter_moves_the_message_now(queue):
    queue.send("bad")
    [msg] = queue.receive(visibility_s=30)
    queue.dead_letter(msg, "malformed message body")
    assert queue.receive(wait_s=0) == []
    assert [(m.body, m.dead_reason) for m in queue.dead_letters()] == [
        ("bad", "malformed message body")]  # the operator's list says why
    assert queue.stats().dead_letters == 1


def test_dead_letters_is_a_peek_and_redrive_brings_them_back(queue):
    queue.send("a")
    queue.send("b")
    for msg in queue.receive(max_messages=2, visibility_s=30):
        queue.dead_letter(msg, "testing")
    while len(queue.dead_letters()) < 2:  # a backend may split the batch
        for msg in queue.receive(max_messages=2, wait_s=1, visibility_s=30):
            queue.dead_letter(msg, "testing")
    assert len(queue.dead_letters()) == 2
    assert queue.redrive() == 2
    assert queue.dead_letters() == []
    bodies = []
    deadline = time.monotonic() + 10
    while len(bodies) < 2 and time.monotonic() < deadline:
        for msg in queue.receive(max_messages=2, wait_s=1, visibility_s=30):
            bodies.append(msg.body)
            queue.delete(msg)
    assert sorted(bodies) == ["a", "b"]


def test_redrive_with_a_limit_moves_at_most_that_many(queue):
    for body in ("a", "b", "c"):
        queue.send(body)
    while len(queue.dead_letters()) < 3:
        for msg in queue.receive(max_messages=3, wait_s=1, visibility_s=30):
            queue.dead_letter(msg, "testing")
    assert queue.redrive(limit=1) == 1
    assert len(queue.dead_letters()) == 2


def test_long_poll_returns_a_message_sent_while_waiting(queue, lease_s):
    timer = threading.Timer(lease_s, queue.send, args=("late",))
    timer.start()
    try:
        got = queue.receive(wait_s=long_wait(lease_s), visibility_s=30)
    finally:
        timer.join()
    assert [m.body for m in got] == ["late"]


# Far longer than any of these tests may take: a receive that sat it out fails them.
UNSTOPPED_WAIT_S = 60


def _receive_in_thread(queue, stop: threading.Event) -> tuple[threading.Thread, list]:
    got: list = []
    thread = threading.Thread(target=lambda: got.append(
        queue.receive(wait_s=UNSTOPPED_WAIT_S, visibility_s=30, stop=stop)), daemon=True)
    thread.start()
    return thread, got


def test_a_set_stop_means_no_long_poll(queue):
    stop = threading.Event()
    stop.set()
    thread, got = _receive_in_thread(queue, stop)
    thread.join(UNSTOPPED_WAIT_S / 2)
    assert not thread.is_alive(), "a receive whose stop is set must not wait"
    assert got == [[]]


def test_stop_ends_a_waiting_long_poll(queue):
    """A draining consumer's receive ends when its stop is set, not when its wait does."""
    stop = threading.Event()
    thread, got = _receive_in_thread(queue, stop)
    threading.Timer(0.3, stop.set).start()
    thread.join(UNSTOPPED_WAIT_S / 2)
    assert not thread.is_alive(), "setting stop must end a waiting receive"
    assert got == [[]]


def test_a_delayed_message_is_not_visible_at_once(queue):
    queue.send("later", delay_s=2)
    assert queue.receive(wait_s=0) == []


def test_stats_count_visible_in_flight_and_dead(queue):
    for body in ("a", "b", "c"):
        queue.send(body)
    [held] = queue.receive(visibility_s=60)
    stats = queue.stats()
    assert (stats.visible, stats.in_flight, stats.dead_letters) == (2, 1, 0)
    queue.dead_letter(held, "testing")
    assert queue.stats().dead_letters == 1


__all__ = [name for name in dir() if name.startswith("test_")] + [
    "QUEUE_MAX_RECEIVES", "lease_s", "long_wait"]
