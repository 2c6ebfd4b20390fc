"""SegmentCompletionStore on DynamoDB: PK ``job_id`` (S), SK ``segment_index`` (N).

A Query by job_id returns completions in segment order, so reassembly builds
its concat list without sorting or listing storage.
"""

from __future__ import annotations

import builtins
from typing import Any

from shared_types.errors import ConditionFailedError
from shared_types.models import SegmentCompletion

from aws_adapters.dynamo_table import DynamoTable, to_item, to_values
from aws_adapters.errors import translated


class DynamoSegmentCompletionStore:
    """Segment completions in one DynamoDB table."""

    def __init__(self, table: str, *, client: Any = None, region: str | None = None,
                 endpoint_url: str | None = None) -> None:
        self._t = DynamoTable(table, client=client, region=region, endpoint_url=endpoint_url)

    def put(self, completion: SegmentCompletion) -> bool:
        """Record a completion with a conditional put; True if it was new,
        False if this (job_id, segment_index) was already recorded for this run
        or a newer one (an item of an older run is replaced; no ``run`` is run 0)."""
        condition = "attribute_not_exists(job_id)"
        values = {}
        if completion.run:
            condition += " OR attribute_not_exists(#run) OR #run < :run"
            values = {"ExpressionAttributeNames": {"#run": "run"},
                      "ExpressionAttributeValues": to_values({":run": completion.run})}
        try:
            with translated(f"put completion {completion.job_id}/{completion.segment_index}"):
                self._t.client.put_item(
                    TableName=self._t.table, Item=to_item(completion.model_dump(mode="json")),
                    ConditionExpression=condition, **values)
        except ConditionFailedError:
            return False
        return True

    def list(self, job_id: str) -> builtins.list[SegmentCompletion]:
        """All completions of a job, ordered by segment_index."""
        return [SegmentCompletion.model_validate(row)
                for row in self._t.query_partition("job_id", job_id)]

    def count(self, job_id: str) -> int:
        """Number of distinct completed segments of a job."""
        return self._t.count_partition("job_id", job_id)

    def delete(self, job_id: str, segment_index: int) -> None:
        """Forget one completion; no error if absent."""
        self._t.delete_item({"job_id": job_id, "segment_index": segment_index})

    def delete_job(self, job_id: str) -> None:
        """Forget every completion of a job."""
        self._t.delete_partition("job_id", "segment_index", job_id)
