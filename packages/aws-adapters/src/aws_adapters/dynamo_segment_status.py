"""SegmentStatusStore on DynamoDB: PK ``job_id`` (S), SK ``segment_index`` (N).

Each mark is one conditional UpdateItem; a complete segment never goes back to
pending or failed (the condition fails and the stored row is returned).
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


class DynamoSegmentStatusStore:
    """Per-segment processing status in one DynamoDB table."""

    def __init__(self, table: str, *, client: Any = None, region: str | None = None,
                 endpoint_url: str | None = None) -> None:
        self._t = DynamoTable(table, client=client, region=region, endpoint_url=endpoint_url)

    def _mark(self, job_id: str, index: int, state: SegmentState, *, attempt: bool,
              error: str | None, guard: bool) -> SegmentStatus:
        values: dict[str, Any] = {":state": state.value, ":now": now(), ":zero": 0}
        sets = ["#state = :state", "updated_at = :now"]
        if attempt:
            values[":one"] = 1
            sets.append("attempts = if_not_exists(attempts, :zero) + :one")
        else:
            sets.append("attempts = if_not_exists(attempts, :zero)")
        if error is not None:
            values[":error"] = error[:MAX_ERROR_CHARS]
            expression = "SET " + ", ".join(sets + ["last_error = :error"])
        else:
            expression = "SET " + ", ".join(sets) + " REMOVE last_error"
        kwargs: dict[str, Any] = {}
        if guard:
            values[":complete"] = SegmentState.COMPLETE.value
            kwargs["ConditionExpression"] = _NOT_COMPLETE
        try:
            with translated(f"mark segment {job_id}/{index} {state.value}"):
                resp = self._t.client.update_item(
                    TableName=self._t.table,
                    Key=to_item({"job_id": job_id, "segment_index": index}),
                    UpdateExpression=expression, ExpressionAttributeNames={"#state": "state"},
                    ExpressionAttributeValues=to_values(values), ReturnValues="ALL_NEW",
                    **kwargs)
        except ConditionFailedError:
            current = self.get(job_id, index)
            if current is None:  # deleted in between; only a complete row fails the guard
                raise
            return current
        return SegmentStatus.model_validate(from_item(resp["Attributes"]))

    def mark_pending(self, job_id: str, segment_index: int) -> SegmentStatus:
        """Record an attempt before any work: attempts + 1, state pending.
        A complete segment stays complete (returned unchanged)."""
        return self._mark(job_id, segment_index, SegmentState.PENDING, attempt=True,
                          error=None, guard=True)

    def mark_complete(self, job_id: str, segment_index: int) -> SegmentStatus:
        """Set state complete (clears last_error); creates the row if missing."""
        return self._mark(job_id, segment_index, SegmentState.COMPLETE, attempt=False,
                          error=None, guard=False)

    def mark_failed(self, job_id: str, segment_index: int, error: str) -> SegmentStatus:
        """Set state failed with a reason (kept to 4000 characters); a complete
        segment stays complete."""
        return self._mark(job_id, segment_index, SegmentState.FAILED, attempt=False,
                          error=error, guard=True)

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
