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
