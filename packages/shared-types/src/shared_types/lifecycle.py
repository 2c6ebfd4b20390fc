"""The job lifecycle as one table: every status, its owner, its proof of life,
its sweep, and where it may go.

A status that nothing sweeps cannot exist here: each non-terminal status names
the janitor sweep that recovers it (``video_worker.janitor`` picks its handler
by :class:`Sweep`), and each terminal one has nowhere to go. The named
transitions (``shared_types.transitions``, the only code that writes a job's
status or creates a job) refuse a move the table does not list; the
lifecycle property test (``local_stack.testing.lifecycle_machine``) checks
every status change the stores made against it; docs/ARCHITECTURE.md's table
is :func:`markdown_table` (a test compares them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from shared_types.models import JobStatus

S = JobStatus


class Sweep(StrEnum):
    """What the janitor does for a job in a status once its proof of life lapsed."""

    RESEND_UPLOAD = "resend_upload"
    EXPIRE_HOLD = "expire_hold"
    RECOVER_CHUNKING = "recover_chunking"
    FINISH_SEGMENTS = "finish_segments"
    RESEND_REASSEMBLY = "resend_reassembly"
    NONE = "none"  # terminal: nobody owns it, nothing sweeps it


@dataclass(frozen=True)
class Stage:
    owner: str  # who works on a job in this status
    alive: str  # how the owner proves it is alive
    sweep: Sweep  # the janitor's sweep for it
    rescue: str  # what that sweep does once the proof lapsed
    next: frozenset[JobStatus]  # where it may go from here


# Statuses a job may be created in (``transitions.create_job``).
INITIAL: frozenset[JobStatus] = frozenset({S.CREATED, S.AWAITING_CONFIRMATION})

_ENDS = frozenset({S.FAILED, S.CANCELLED})
_TERMINAL = Stage("nobody", "—", Sweep.NONE,
                  "never touched (`JobStatus.is_final`; `IN_PROGRESS_STATUSES` is derived from it)",
                  frozenset())

LIFECYCLE: Mapping[JobStatus, Stage] = MappingProxyType({
    S.CREATED: Stage(
        "web-ui until the upload, then the chunking queue's event",
        "`updated_at` (set at creation or by Retry)",
        Sweep.RESEND_UPLOAD,
        "stale + source present: re-send the source event, or a clip's `ClipMessage` (a "
        "clip's source is its parent's; counted). No source after `upload_timeout_s` (24 h): "
        "fail `upload_missing`",
        frozenset({S.CHUNKING_IN_PROGRESS}) | _ENDS),
    S.AWAITING_CONFIRMATION: Stage(
        "until the strip exists: the chunking queue's event; then the person",
        "`updated_at` (creation, the strip, each preview started)",
        Sweep.EXPIRE_HOLD,
        "stale + source present + no strip (`thumbnails` unset): re-send the source event "
        "(counted; media-worker makes the strip, never segments). No source after "
        "`upload_timeout_s`: fail `upload_missing`. Untouched for `hold_timeout_s` (7 days): "
        "fail `preview_expired` (Retry converts it with the settings chosen last). Never "
        "chunked by the sweep",
        frozenset({S.CREATED}) | _ENDS),
    S.CHUNKING_IN_PROGRESS: Stage(
        "one media-worker: the one whose claim took the job's current chunking run `Job.run`",
        "`updated_at`, refreshed every 60 s while ffmpeg runs and, conditional on `Job.run`, "
        "before the poster, the side streams and every segment upload; the message's "
        "visibility heartbeat",
        Sweep.RECOVER_CHUNKING,
        "stale: the current run's segment keys form one set `0..n-1` → set "
        "`chunking_complete` (conditional on the run) + trigger; else re-send the source event "
        "or clip message (counted; the next chunker claims run + 1, so the stalled one is a "
        "fenced-out zombie); source (a clip's: its parent's) gone → fail `source_missing`",
        frozenset({S.CHUNKING_IN_PROGRESS, S.CHUNKING_COMPLETE}) | _ENDS),
    S.CHUNKING_COMPLETE: Stage(
        "video-workers (one message per segment); once every segment is complete, whoever "
        "records the last completion, then the trigger's caller until its send lands",
        "each segment's status row (`pending`, `attempts`, `updated_at`) and frame "
        "heartbeats; the message's heartbeat; once triggered, `updated_at`",
        Sweep.FINISH_SEGMENTS,
        "every segment complete, not triggered: trigger at once (no wait). Triggered + stale: "
        "re-send the reassembly message (counted). A `failed` segment, or one `pending` with "
        "`attempts >= max_segment_attempts` untouched (no status change, no frame heartbeat) "
        "for `stuck_after_s` → fail `segment_gave_up`. Segments without a status row, or "
        "`pending` with attempts left, when no segment of the job moved for `stuck_after_s` → "
        "re-send their events (counted)",
        frozenset({S.REASSEMBLING, S.COMPLETED}) | _ENDS),
    S.REASSEMBLING: Stage(
        "one media-worker holding the reassembly lease",
        "the lease (`lease_s`, renewed every third) and `updated_at`, refreshed every 60 s "
        "during downloads and concat",
        Sweep.RESEND_REASSEMBLY,
        "stale: re-send the reassembly message (counted); a new worker takes the expired "
        "lease with a larger fencing token",
        frozenset({S.REASSEMBLING, S.COMPLETED}) | _ENDS),
    S.COMPLETED: _TERMINAL,
    S.FAILED: Stage(
        "nobody (the person may press Retry)", "—", Sweep.NONE,
        "never touched; Retry moves it back to `created` (re-chunk) or `chunking_complete`",
        frozenset({S.CREATED, S.CHUNKING_COMPLETE})),
    S.CANCELLED: _TERMINAL,
})


def may_move(source: JobStatus, target: JobStatus) -> bool:
    """Whether the table lets a job in ``source`` move to ``target``."""
    return target in LIFECYCLE[source].next


def swept() -> list[tuple[JobStatus, Sweep]]:
    """Each status the janitor sweeps, with its sweep, in the table's order."""
    return [(status, stage.sweep) for status, stage in LIFECYCLE.items()
            if stage.sweep is not Sweep.NONE]


def markdown_table() -> str:
    """The table as docs/ARCHITECTURE.md shows it (one row per status)."""
    lines = ["| status | owner while it works | proof the owner is alive | "
             "sweep when the owner is gone | may move to |",
             "|---|---|---|---|---|"]
    for status, stage in LIFECYCLE.items():
        moves = ", ".join(f"`{s.value}`" for s in JobStatus if s in stage.next) or "—"
        lines.append(f"| `{status.value}` | {stage.owner} | {stage.alive} | "
                     f"{stage.rescue} | {moves} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # python -m shared_types.lifecycle > the table for the docs
    print(markdown_table(), end="")
