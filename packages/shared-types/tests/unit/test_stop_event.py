"""StopEvent: an Event whose ``set`` also wakes waits registered with ``waking``."""

import os
import signal
import threading

import pytest

from shared_types.stop_event import StopEvent


def test_set_runs_the_wakers_registered_while_a_block_runs():
    stop, woken = StopEvent(), []
    with stop.waking(lambda: woken.append("inside")):
        stop.set()
    stop.clear()
    stop.set()  # the block is over: its waker is gone
    assert woken == ["inside"]
    assert stop.is_set()


def test_a_waker_runs_at_once_when_the_event_is_already_set():
    stop, woken = StopEvent(), []
    stop.set()
    with stop.waking(lambda: woken.append(1)):
        assert woken == [1]


def test_set_from_another_thread_wakes_a_blocked_wait():
    stop, ready, ring = StopEvent(), threading.Event(), threading.Event()

    def wait() -> None:
        with stop.waking(ring.set):
            ready.set()
            ring.wait(60)  # stands for a socket wait that only a ring ends

    thread = threading.Thread(target=wait)
    thread.start()
    assert ready.wait(30)
    stop.set()
    thread.join(30)
    assert not thread.is_alive() and ring.is_set()


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="no SIGUSR1 on this OS")
def test_set_in_a_signal_handler_inside_a_waking_block_does_not_deadlock():
    stop, woken = StopEvent(), []
    previous = signal.signal(signal.SIGUSR1, lambda *_: stop.set())
    try:
        with stop.waking(lambda: woken.append(1)):
            os.kill(os.getpid(), signal.SIGUSR1)  # handled on this thread, in the block
            assert stop.wait(30)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert woken == [1]


def _set_while_held(event: threading.Event) -> threading.Thread:
    """A thread that sets ``event`` from a signal-like nesting: while its own
    thread holds the event's lock, as a handler that interrupted ``set`` or
    ``wait`` does."""
    def nested() -> None:
        with event._cond:  # noqa: SLF001 (where the interrupted call stood)
            event.set()

    thread = threading.Thread(target=nested, daemon=True)
    thread.start()
    return thread


def test_set_nested_inside_its_own_lock_returns():
    stop = StopEvent()
    thread = _set_while_held(stop)
    thread.join(30)
    assert not thread.is_alive() and stop.is_set()


def test_a_plain_event_deadlocks_in_the_same_nesting():
    # negative control: what a second SIGTERM did to a draining video-worker
    plain = threading.Event()
    thread = _set_while_held(plain)
    thread.join(1)
    assert thread.is_alive() and not plain.is_set()  # stuck for good (a daemon thread)


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="no SIGUSR1 on this OS")
def test_a_signal_handled_inside_set_sets_again_without_deadlock():
    stop, calls = StopEvent(), []

    def handler(*_: object) -> None:
        calls.append(1)
        stop.set()

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        with stop._cond:  # noqa: SLF001 (the first handler's set, mid-way)
            os.kill(os.getpid(), signal.SIGUSR1)  # handled here, on this thread
            for _ in range(1000):  # a few bytecodes: the handler runs among them
                if calls:
                    break
        assert calls == [1] and stop.wait(30)
    finally:
        signal.signal(signal.SIGUSR1, previous)
