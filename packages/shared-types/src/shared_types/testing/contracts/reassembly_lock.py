"""ReassemblyLock contract: trigger exactly once; fenced leases that expire and are retaken."""

from __future__ import annotations

import pytest

from shared_types.errors import LeaseLostError
from shared_types.testing.contracts import lease_s, run_concurrently, wait_past  # noqa: F401  (fixture)


def test_trigger_is_true_exactly_once(reassembly_lock):
    assert reassembly_lock.is_triggered("job-a") is False
    assert reassembly_lock.trigger("job-a") is True
    assert reassembly_lock.trigger("job-a") is False
    assert reassembly_lock.is_triggered("job-a") is True
    assert reassembly_lock.is_triggered("job-b") is False


def test_a_later_epoch_triggers_once_more_and_keeps_the_fencing_token(reassembly_lock, lease_s):
    assert reassembly_lock.trigger("job-a", 0) is True
    first = reassembly_lock.take_lease("job-a", "worker-1", lease_s)
    assert reassembly_lock.trigger("job-a", 1) is True  # a Retry bumped the job's epoch
    assert reassembly_lock.trigger("job-a", 1) is False
    assert reassembly_lock.trigger("job-a", 0) is False  # a stale trigger from before
    wait_past(lease_s)
    second = reassembly_lock.take_lease("job-a", "worker-2", 30)
    assert second is not None and second.token > first.token
    with pytest.raises(LeaseLostError):
        reassembly_lock.complete(first)  # the holder from before the Retry cannot finish


def test_a_lease_taken_before_any_trigger_does_not_count_as_one(reassembly_lock):
    reassembly_lock.take_lease("job-a", "worker-1", 30)
    assert reassembly_lock.is_triggered("job-a") is False
    assert reassembly_lock.trigger("job-a") is True


def test_concurrent_triggers_have_one_winner(reassembly_lock):
    wins = run_concurrently(lambda: reassembly_lock.trigger("job-a"), 8)
    assert wins.count(True) == 1


def test_a_held_lease_cannot_be_taken_by_another_owner(reassembly_lock):
    reassembly_lock.trigger("job-a")
    lease = reassembly_lock.take_lease("job-a", "worker-1", 30)
    assert lease is not None and lease.owner == "worker-1" and lease.job_id == "job-a"
    assert reassembly_lock.take_lease("job-a", "worker-2", 30) is None


def test_take_lease_works_without_a_prior_trigger(reassembly_lock):
    assert reassembly_lock.take_lease("job-a", "worker-1", 30) is not None


def test_an_expired_lease_is_retaken_with_a_larger_token(reassembly_lock, lease_s):
    first = reassembly_lock.take_lease("job-a", "worker-1", lease_s)
    wait_past(lease_s)
    second = reassembly_lock.take_lease("job-a", "worker-2", 30)
    assert second is not None and second.owner == "worker-2"
    assert second.token > first.token


def test_a_stale_holder_can_neither_renew_nor_complete(reassembly_lock, lease_s):
    stale = reassembly_lock.take_lease("job-a", "worker-1", lease_s)
    wait_past(lease_s)
    current = reassembly_lock.take_lease("job-a", "worker-2", 30)
    with pytest.raises(LeaseLostError):
        reassembly_lock.renew(stale, 30)
    with pytest.raises(LeaseLostError):
        reassembly_lock.complete(stale)
    assert reassembly_lock.is_done("job-a") is False
    reassembly_lock.complete(current)
    assert reassembly_lock.is_done("job-a") is True


def test_renew_keeps_the_lease_past_its_first_expiry(reassembly_lock, lease_s):
    lease = reassembly_lock.take_lease("job-a", "worker-1", lease_s)
    renewed = reassembly_lock.renew(lease, 30)
    assert renewed.token == lease.token and renewed.expires_at > lease.expires_at
    wait_past(lease_s)
    assert reassembly_lock.take_lease("job-a", "worker-2", 30) is None
    reassembly_lock.complete(renewed)


def test_after_complete_no_lease_is_granted_and_renew_fails(reassembly_lock):
    lease = reassembly_lock.take_lease("job-a", "worker-1", 30)
    reassembly_lock.complete(lease)
    assert reassembly_lock.is_done("job-a") is True
    assert reassembly_lock.take_lease("job-a", "worker-2", 30) is None
    with pytest.raises(LeaseLostError):
        reassembly_lock.renew(lease, 30)


def test_reset_allows_a_new_trigger(reassembly_lock):
    reassembly_lock.trigger("job-a")
    reassembly_lock.complete(reassembly_lock.take_lease("job-a", "worker-1", 30))
    reassembly_lock.reset("job-a")
    assert reassembly_lock.is_triggered("job-a") is False
    assert reassembly_lock.is_done("job-a") is False
    assert reassembly_lock.trigger("job-a") is True


__all__ = [name for name in dir() if name.startswith("test_")] + ["lease_s"]
