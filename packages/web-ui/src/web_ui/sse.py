"""Server-sent progress events for one job.

Events: ``progress`` (a ProgressSnapshot as JSON, ``id`` = digest of the
state), ``ping`` (keep-alive), ``done`` (the job is final; the stream ends) and
``gone`` (the job was deleted). A reconnect with ``Last-Event-ID`` equal to the
current state's id gets no duplicate snapshot, only what changes after it.
Store reads run in a worker thread, never on the event loop.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

import anyio.to_thread
from shared_types.ports import Backend
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request

from web_ui.eta import EtaEstimator
from web_ui.progress_snapshot import ProgressSnapshot, snapshot

RECONNECT_MS = 2000
MAX_EVENT_ID_LENGTH = 64


def read_snapshot(backend: Backend, job_id: str, eta: EtaEstimator) -> ProgressSnapshot | None:
    """The job's progress, or None when the job no longer exists (blocking)."""
    job = backend.jobs.get(job_id)
    return snapshot(backend, job, eta) if job is not None else None


async def progress_events(
    request: Request,
    backend: Backend,
    job_id: str,
    eta: EtaEstimator,
    *,
    poll_s: float,
    last_event_id: str | None = None,
) -> AsyncIterator[ServerSentEvent]:
    """Yield an event whenever the job's progress changes, until it is final.
    Reads every ``poll_s``, and at once when the backend tells of a change of
    the job's status (``Backend.job_changes``: the local doorbell), so a page
    sees its job end when it does."""
    last_id = last_event_id
    with backend.job_changes.listen() as changes:  # before the first read: nothing missed
        while not await request.is_disconnected():
            snap = await anyio.to_thread.run_sync(read_snapshot, backend, job_id, eta)
            if snap is None:
                yield ServerSentEvent(event="gone", data=json.dumps({"job_id": job_id}))
                return
            event_id = snap.event_id()
            if event_id != last_id:
                yield ServerSentEvent(
                    event="progress", id=event_id, data=snap.model_dump_json(),
                    retry=RECONNECT_MS,
                )
                last_id = event_id
            if snap.is_final:
                yield ServerSentEvent(event="done", data=json.dumps({"status": snap.status.value}))
                return
            await changes.wait_async(poll_s)


def progress_response(
    request: Request, backend: Backend, job_id: str, eta: EtaEstimator,
    *, poll_s: float, ping_s: float,
) -> EventSourceResponse:
    """The SSE response for a job's progress page."""
    last_event_id = request.headers.get("last-event-id")
    if last_event_id is not None and len(last_event_id) > MAX_EVENT_ID_LENGTH:
        last_event_id = None
    return EventSourceResponse(
        progress_events(request, backend, job_id, eta, poll_s=poll_s, last_event_id=last_event_id),
        ping=ping_s,
        ping_message_factory=lambda: ServerSentEvent(event="ping", data=str(int(time.time()))),
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
