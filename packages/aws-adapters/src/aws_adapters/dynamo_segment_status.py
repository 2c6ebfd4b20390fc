"""SegmentStatusStore on DynamoDB: PK ``job_id`` (S), SK ``segment_index`` (N).

Each mark is one conditional UpdateItem on the row of the same chunking run (an
item without ``run`` is run 0); a complete segment never goes back to pending or
failed (the condition fails and the stored row is returned). A mark of a newer
run replaces an older run's row with a second conditional UpdateItem; a mark
of an older run changes nothing.
"""

from __future__ import annotations

import builtins
from typing import Any

from shared_types.errors import ConditionFailedError
from shared_types.models import SegmentState, SegmentStatus, now

from aws_adapters.dynamo_table import DynamoTable, from_item, to_item, to_values
from aws_adapters.errors import translated

MAX_ERROR_CHARS = 4000
_NOT_COMPLETE = "(attribute_not_exists(#state) OR #state <> :complete)"
# a new row, a row of this run, or an old version's row (no run: run 0) of run 0
_SAME_RUN = ("(attribute_not_exists(job_id) OR #run = :run"
             " OR attribute_not_exists(#run) AND :run = :zero)")
_OLDER_RUN = "(attribute_not_exists(#run) OR #run < :run)"


class DynamoSegmentStatusStore:
    """Per-segment processing status in one DynamoDB table."""

    def __init__(self, table: str, *, client: Any = None, region: str | None = None,
                 endpoint_url: str | None = None) -> None:
        self._t = DynamoTable(table, client=client, region=region, endpoint_url=endpoint_url)

    def _mark(self, job_id: str, index: int, state: SegmentState, *, attempt: bool,
              error: str | None, guard: bool, run: int) -> SegmentStatus:
        try:
            return self._update(job_id, index, state, attempt=attempt, error=error,
                                fresh=False, condition=_SAME_RUN + (
                                    f" AND {_NOT_COMPLETE}" if guard else ""), run=run)
        except ConditionFailedError:
            pass
        try:  # the row is another run's: replace it if that run is older
            return self._update(job_id, index, state, attempt=attempt, error=error,
                                fresh=True, condition=_OLDER_RUN, run=run)
        except ConditionFailedError:
            current = self.get(job_id, index)
            if current is None:  # deleted in between; only an existing row fails here
                raise
            return current

    def _update(self, job_id: str, index: int, state: SegmentState, *, attempt: bool,
                error: str | None, fresh: bool, condition: str, run: int) -> SegmentStatus:
        """One conditional UpdateItem; ``fresh`` restarts the attempt count.
        Raises ConditionFailedError."""
        values: dict[str, Any] = {":state": state.value, ":now": now(), ":zero": 0, ":run": run}
        if ":complete" in condition:
            values[":complete"] = SegmentState.COMPLETE.value
        sets = ["#state = :state", "updated_at = :now", "#run = :run"]
        base = ":zero" if fresh else "if_not_exists(attempts, :zero)"
        if attempt:
            values[":one"] = 1
            sets.append(f"attempts = {base} + :one")
        else:
            sets.append(f"attempts = {base}")
        if error is not None:
            values[":error"] = error[:MAX_ERROR_CHARS]
            expression = "SET " + ", ".join(sets + ["last_error = :error"])
        else:
            expression = "SET " + ", ".join(sets) + " REMOVE last_error"
        with translated(f"mark segment {job_id}/{index} {state.value}"):
            resp = self._t.client.update_item(
                TableName=self._t.table,
                Key=to_item({"job_id": job_id, "segment_index": index}),
                UpdateExpression=expression, ConditionExpression=condition,
                ExpressionAttributeNames={"#state": "state", "#run": "run"},
                ExpressionAttributeValues=to_values(values), ReturnValues="ALL_NEW")
        return SegmentStatus.model_validate(from_item(resp["Attributes"]))

    def mark_pending(self, job_id: str, segment_index: int, run: int = 0) -> SegmentStatus:
        """Record an attempt before any work: attempts + 1, state pending.
        A complete segment stays complete (returned unchanged)."""
        return self._mark(job_id, segment_index, SegmentState.PENDING, attempt=True,
                          error=None, guard=True, run=run)

    def mark_complete(self, job_id: str, segment_index: int, run: int = 0) -> SegmentStatus:
        """Set state complete (clears last_error); creates the row if missing."""
        return self._mark(job_id, segment_index, SegmentState.COMPLETE, attempt=False,
                          error=None, guard=False, run=run)

    def mark_failed(self, job_id: str, segment_index: int, error: str,
                    run: int = 0) -> SegmentStatus:
        """Set state failed with a reason (kept to 4000 characters); a complete
        segment stays complete."""
        return self._mark(job_id, segment_index, SegmentState.FAILED, attempt=False,
                          error=error, guard=True, run=run)

    def get(self, job_id: str, segment_index: int) -> SegmentStatus | None:
        """The status row, or None."""
        row = self._t.get({"job_id": job_id, "segment_index": segment_index})
        return SegmentStatus.model_validate(row) if row else None

    def list(self, job_id: str) -> builtins.list[SegmentStatus]:
        """All status rows of a job, ordered by segment_index."""
        return [SegmentStatus.model_validate(row)
                for row in self._t.query_partition("job_id", job_id)]

    def delete(self, job_id: str, segment_index: int) -> None:
        """Forget one status row; no error if absent."""
        self._t.delete_item({"job_id": job_id, "segment_index": segment_index})

    def delete_job(self, job_id: str) -> None:
        """Forget every status row of a job."""
        self._t.delete_partition("job_id", "segment_index", job_id)
