"""The lease keeper renews on ticks once a third of the lease has passed, and
stops the work as soon as the lease was retaken."""

from __future__ import annotations

import pytest
from shared_types.errors import LeaseLostError
from shared_types.testing.memory import MemoryReassemblyLock

from media_worker.lease_keeper import LeaseKeeper


@pytest.fixture
def clock():
    return [100.0]


def test_ticks_renew_only_when_a_third_of_the_lease_passed(clock):
    lock = MemoryReassemblyLock(lambda: clock[0])
    keeper = LeaseKeeper(lock, lock.take_lease("j1", "me:1:1", 30), 30, clock=lambda: clock[0])
    first_expiry = keeper.lease.expires_at

    clock[0] += 5
    keeper.tick()
    assert keeper.lease.expires_at == first_expiry
    clock[0] += 6
    keeper.tick()
    assert keeper.lease.expires_at == pytest.approx(clock[0] + 30)


def test_a_retaken_lease_stops_the_work_on_the_next_due_tick(clock):
    lock = MemoryReassemblyLock(lambda: clock[0])
    keeper = LeaseKeeper(lock, lock.take_lease("j1", "me:1:1", 30), 30, clock=lambda: clock[0])
    clock[0] += 31
    assert lock.take_lease("j1", "other:2:2", 30) is not None

    with pytest.raises(LeaseLostError):
        keeper.tick()
    with pytest.raises(LeaseLostError):
        lock.complete(keeper.lease)
