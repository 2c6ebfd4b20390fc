"""SegmentHeartbeatStore on DynamoDB, riding on the segment-status table.

A beat is one conditional UpdateItem setting the ``heartbeat`` attribute (the
beat as JSON) of the segment's status item, so heartbeats need no table and no
IAM resource of their own; the condition (the status item exists) keeps a late
beat from recreating the row of a deleted job.
"""

from __future__ import annotations

import builtins
from typing import Any

from shared_types.errors import ConditionFailedError
from shared_types.models import SegmentHeartbeat

from aws_adapters.dynamo_table import DynamoTable, to_item, to_values
from aws_adapters.errors import translated

ATTRIBUTE = "heartbeat"


class DynamoSegmentHeartbeatStore:
    """Heartbeats as an attribute of the segment-status items (PK job_id, SK segment_index)."""

    def __init__(self, table: str, *, client: Any = None, region: str | None = None,
                 endpoint_url: str | None = None) -> None:
        self._t = DynamoTable(table, client=client, region=region, endpoint_url=endpoint_url)

    def _update(self, job_id: str, index: int, expression: str, **kwargs: Any) -> None:
        try:
            with translated(f"heartbeat {job_id}/{index}"):
                self._t.client.update_item(
                    TableName=self._t.table,
                    Key=to_item({"job_id": job_id, "segment_index": index}),
                    UpdateExpression=expression, ConditionExpression="attribute_exists(job_id)",
                    **kwargs)
        except ConditionFailedError:
            pass  # no status row: the job was deleted (or never chunked)

    def beat(self, heartbeat: SegmentHeartbeat) -> None:
        """Replace the segment's beat; ignored without a status item."""
        self._update(heartbeat.job_id, heartbeat.segment_index, f"SET {ATTRIBUTE} = :beat",
                     ExpressionAttributeValues=to_values({":beat": heartbeat.model_dump_json()}))

    def list(self, job_id: str) -> builtins.list[SegmentHeartbeat]:
        """The job's beats by segment_index (one Query of its partition)."""
        return [SegmentHeartbeat.model_validate_json(row[ATTRIBUTE])
                for row in self._t.query_partition("job_id", job_id) if ATTRIBUTE in row]

    def delete_job(self, job_id: str) -> None:
        """Remove the beats, keeping the status items."""
        for row in self._t.query_partition("job_id", job_id):
            if ATTRIBUTE in row:
                self._update(job_id, int(row["segment_index"]), f"REMOVE {ATTRIBUTE}")
