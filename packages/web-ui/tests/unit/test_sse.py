import threading

from shared_types.models import JobStatus, JobUpdate, SegmentCompletion

from .conftest import add_job
from .sse_parse import parse_events


def names(events):
    return [e["event"] for e in events if e["event"] != "ping"]


def test_a_final_job_gets_one_snapshot_then_done(client, backend):
    job = add_job(backend, status=JobStatus.COMPLETED)
    r = client.get(f"/jobs/{job.job_id}/events")
    assert r.headers["content-type"].startswith("text/event-stream")
    events = parse_events(r.text)
    assert names(events) == ["progress", "done"]
    assert events[0]["json"]["percent"] == 100.0
    assert events[0]["id"]
    assert events[0]["retry"] == "2000"
    assert events[1]["json"] == {"status": "completed"}


def test_progress_streams_each_change_until_the_job_completes(client, backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=2)
    polls, read = threading.Semaphore(0), backend.completions.list

    def counted_read(job_id):
        rows = read(job_id)
        polls.release()  # the stream took a snapshot
        return rows

    backend.completions.list = counted_read

    def advance():  # one change after each snapshot the stream takes (no sleeps)
        for i in range(2):
            assert polls.acquire(timeout=30)
            backend.completions.put(SegmentCompletion(
                job_id=job.job_id, segment_index=i, output_key=f"o{i}"))
        assert polls.acquire(timeout=30)
        backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED))

    driver = threading.Thread(target=advance)
    driver.start()
    r = client.get(f"/jobs/{job.job_id}/events")
    driver.join()
    events = parse_events(r.text)
    progress = [e["json"] for e in events if e["event"] == "progress"]
    done = [p["segments_done"] for p in progress]
    # Each poll sends the state if it changed (a slow machine may merge two changes).
    assert done[0] == 0
    assert done == sorted(done)
    assert done[-1] == 2
    assert progress[0]["strip"] == ["pending", "pending"]
    assert progress[-1]["strip"] == ["done", "done"]
    assert progress[-1]["status"] == "completed"
    assert names(events)[-1] == "done"
    ids = [e["id"] for e in events if e["event"] == "progress"]
    assert len(set(ids)) == len(ids)


def test_reconnect_with_last_event_id_skips_the_state_already_seen(client, backend):
    job = add_job(backend, status=JobStatus.FAILED)
    first = parse_events(client.get(f"/jobs/{job.job_id}/events").text)
    seen = first[0]["id"]
    again = parse_events(client.get(f"/jobs/{job.job_id}/events",
                                    headers={"Last-Event-ID": seen}).text)
    assert names(again) == ["done"]
    other = parse_events(client.get(f"/jobs/{job.job_id}/events",
                                    headers={"Last-Event-ID": "stale"}).text)
    assert names(other) == ["progress", "done"]


class SignalsFirstRead:
    """A JobStore that sets ``read`` once the stream has read the job (a fake, not a
    mock): the second read, the first being the route's check of who owns it."""

    def __init__(self, inner):
        self.inner = inner
        self.read = threading.Event()
        self.reads = 0

    def get(self, job_id):
        job = self.inner.get(job_id)
        self.reads += 1
        if self.reads >= 2:
            self.read.set()
        return job

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_a_deleted_job_ends_the_stream_with_gone(settings, backend):
    from dataclasses import replace

    from fastapi.testclient import TestClient

    from web_ui.app import create_app

    jobs = SignalsFirstRead(backend.jobs)
    watched = replace(backend, jobs=jobs)
    client = TestClient(create_app(settings, watched))
    job = add_job(backend)

    def delete_after_first_read():
        # Deleting once the first snapshot has read the job (not after a fixed
        # delay) keeps the order "progress, gone" on any machine load.
        if jobs.read.wait(timeout=60):
            backend.jobs.delete(job.job_id)

    t = threading.Thread(target=delete_after_first_read)
    t.start()
    events = parse_events(client.get(f"/jobs/{job.job_id}/events").text)
    t.join()
    assert names(events) == ["progress", "gone"]


def test_keep_alive_pings_are_named_events(settings, backend):
    import httpx
    from shared_types.testing.serving import serve_in_thread

    from web_ui.app import create_app

    quick = settings.model_copy(update={"sse_ping_s": 0.05, "allowed_hosts": ["127.0.0.1"]})
    job = add_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS)
    seen = []
    # A real server streams the body as it is written, so the job completes only
    # once a ping has arrived (waiting on the event, not on a timer).
    with serve_in_thread(create_app(quick, backend)) as url, httpx.stream(
            "GET", f"{url}/jobs/{job.job_id}/events", timeout=60) as r:
        for line in r.iter_lines():
            seen.append(line)
            if line == "event: ping" and backend.jobs.get(job.job_id).status != JobStatus.COMPLETED:
                backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED))
    events = parse_events("\n".join(seen))
    assert any(e["event"] == "ping" for e in events)
    assert names(events)[-1] == "done"


def test_events_for_a_bad_id_are_a_404(client):
    assert client.get("/jobs/nope/events").status_code == 404
