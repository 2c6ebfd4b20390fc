"""Two workers (own clients, own threads) race one job over a real moto_server."""

from __future__ import annotations

import threading

import pytest
from shared_types.errors import LeaseLostError
from shared_types.settings import BackendSettings
from shared_types.testing.clock import ManualClock

from aws_adapters.dynamo_reassembly import DynamoReassemblyLock
from aws_adapters.provision import create_data_plane
from aws_adapters.testing.moto_server import reset_moto_server


def race(workers, action):
    """Run ``action(worker)`` for every worker at the same moment; their results."""
    barrier = threading.Barrier(len(workers))
    results = [None] * len(workers)

    def run(i):
        barrier.wait()
        results[i] = action(workers[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.fixture
def settings(moto_server_url):
    reset_moto_server(moto_server_url)
    return create_data_plane(BackendSettings(backend="aws", aws_endpoint_url=moto_server_url))


def lock(settings, clock):
    return DynamoReassemblyLock(settings.reassembly_table, region=settings.aws_region,
                                endpoint_url=settings.aws_endpoint_url, clock=clock)


def test_two_workers_race_trigger_and_lease_and_exactly_one_wins_each(settings):
    clock = ManualClock(1_000_000.0)
    workers = [lock(settings, clock), lock(settings, clock)]

    triggered = race(workers, lambda w: w.trigger("job-race"))
    assert sorted(triggered) == [False, True]

    owners = iter(["worker-a", "worker-b"])
    names = {id(w): next(owners) for w in workers}
    leases = race(workers, lambda w: w.take_lease("job-race", names[id(w)], 60))
    winners = [lease for lease in leases if lease is not None]
    assert len(winners) == 1

    clock.t += 61  # the winner crashed: its lease runs out
    late = lock(settings, clock)
    retaken = late.take_lease("job-race", "worker-c", 60)
    assert retaken is not None
    assert retaken.token > winners[0].token
    with pytest.raises(LeaseLostError):
        workers[0].complete(winners[0])
    late.complete(retaken)
    assert workers[1].is_done("job-race")
    assert race(workers, lambda w: w.take_lease("job-race", "again", 60)) == [None, None]
