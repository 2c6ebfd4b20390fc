"""JobStore on DynamoDB.

Table: PK ``job_id`` (S). GSIs (projection ALL): ``status-created_at`` (PK
``status``, SK ``created_at`` N) and ``status-completed_at`` (PK ``status``, SK
``completed_at`` N, sparse). Status changes are conditional writes.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Collection
from typing import Any

from shared_types.errors import ConditionFailedError, JobNotFoundError
from shared_types.job_updates import SIMPLE_FIELDS, condition_failure
from shared_types.models import (
    IN_PROGRESS_STATUSES,
    Job,
    JobPage,
    JobStatus,
    JobUpdate,
    now,
)

from aws_adapters.dynamo_table import DynamoTable, from_item, to_item, to_values
from aws_adapters.errors import AwsPermanentError, translated

CREATED_INDEX = "status-created_at"
COMPLETED_INDEX = "status-completed_at"


def encode_cursor(key: dict[str, Any]) -> str:
    """An opaque, URL-safe cursor for a query's exclusive start key."""
    return base64.urlsafe_b64encode(json.dumps(key, sort_keys=True).encode()).decode()


def decode_cursor(cursor: str) -> dict[str, Any]:
    """The key inside a cursor. Raises AwsPermanentError for a tampered cursor."""
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, ValueError) as exc:
        raise AwsPermanentError(f"invalid page cursor {cursor[:40]!r}") from exc
    if not isinstance(key, dict) or "job_id" not in key or "status" not in key:
        raise AwsPermanentError(f"invalid page cursor {cursor[:40]!r}")
    return key


class DynamoJobStore:
    """Jobs in one DynamoDB table; see the module docstring for its schema."""

    def __init__(self, table: str, *, client: Any = None, region: str | None = None,
                 endpoint_url: str | None = None) -> None:
        self._t = DynamoTable(table, client=client, region=region, endpoint_url=endpoint_url)

    @property
    def table(self) -> str:
        return self._t.table

    def create(self, job: Job) -> None:
        """Insert a new job. Raises ConditionFailedError if the id exists."""
        with translated(f"create job {job.job_id}"):
            self._t.client.put_item(
                TableName=self.table, Item=to_item(job.model_dump(mode="json")),
                ConditionExpression="attribute_not_exists(job_id)")

    def get(self, job_id: str) -> Job | None:
        """The job, or None."""
        row = self._t.get({"job_id": job_id})
        return Job.model_validate(row) if row else None

    def update(self, job_id: str, changes: JobUpdate, *,
               expected_status: Collection[JobStatus] | None = None,
               expected_run: int | None = None) -> Job:
        """Apply ``changes`` in one conditional UpdateItem and return the new job.

        Raises JobNotFoundError, or ConditionFailedError when ``expected_status``
        is given and the current status is not one of them, or ``expected_run``
        is given and ``Job.run`` differs (an item without ``run`` is run 0).
        """
        data = changes.model_dump(mode="json")
        values: dict[str, Any] = {":now": now()}
        names: dict[str, str] = {"#updated_at": "updated_at"}
        sets = ["#updated_at = :now"]
        for field in SIMPLE_FIELDS:
            if data[field] is not None:
                names[f"#{field}"] = field
                values[f":{field}"] = data[field]
                sets.append(f"#{field} = :{field}")
        if changes.status == JobStatus.COMPLETED and changes.completed_at is None:
            # The completed list reads the sparse status-completed_at index.
            names["#completed_at"] = "completed_at"
            sets.append("#completed_at = if_not_exists(#completed_at, :now)")
        removes = []
        if data["error"] is not None:
            values[":error"] = data["error"]
            sets.append("#error = :error")
            names["#error"] = "error"
        elif changes.clear_error:
            removes.append("#error")
            names["#error"] = "error"
        condition = "attribute_exists(job_id)"
        if expected_status is not None:
            statuses = sorted(JobStatus(s).value for s in expected_status)
            if not statuses:
                raise self._missing_or_mismatch(job_id, expected_status)
            placeholders = []
            for i, status in enumerate(statuses):
                values[f":expected{i}"] = status
                placeholders.append(f":expected{i}")
            names["#status"] = "status"
            condition += f" AND #status IN ({', '.join(placeholders)})"
        if expected_run is not None:
            names["#run"] = "run"
            values[":expected_run"] = expected_run
            legacy = "" if expected_run else "attribute_not_exists(#run) OR "  # run 0
            condition += f" AND ({legacy}#run = :expected_run)"
        expression = "SET " + ", ".join(sets)
        if removes:
            expression += " REMOVE " + ", ".join(removes)
        try:
            with translated(f"update job {job_id}"):
                resp = self._t.client.update_item(
                    TableName=self.table, Key=to_item({"job_id": job_id}),
                    UpdateExpression=expression, ConditionExpression=condition,
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues=to_values(values), ReturnValues="ALL_NEW")
        except ConditionFailedError:
            raise self._missing_or_mismatch(job_id, expected_status, expected_run) from None
        return Job.model_validate(from_item(resp["Attributes"]))

    def _missing_or_mismatch(self, job_id: str, expected: Collection[JobStatus] | None,
                             expected_run: int | None = None) -> Exception:
        job = self.get(job_id)
        if job is None:
            return JobNotFoundError(f"no job {job_id}")
        return (condition_failure(job, expected, expected_run)
                or ConditionFailedError(f"job {job_id} changed while it was being updated"))

    def _query_index(self, status: JobStatus, limit: int,
                     start: dict[str, Any] | None) -> tuple[list[Job], dict[str, Any] | None]:
        """Up to ``limit`` jobs newest first, and the key to continue after the
        last one (None when no job follows it)."""
        completed = status == JobStatus.COMPLETED
        index, sort_key = ((COMPLETED_INDEX, "completed_at") if completed
                           else (CREATED_INDEX, "created_at"))
        kwargs: dict[str, Any] = {
            "TableName": self.table, "IndexName": index, "ScanIndexForward": False,
            "KeyConditionExpression": "#status = :status",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": to_values({":status": status.value}),
        }
        if start:
            kwargs["ExclusiveStartKey"] = to_item(start)
        jobs: list[Job] = []
        while len(jobs) <= limit:
            kwargs["Limit"] = limit + 1 - len(jobs)
            with translated(f"list {status.value} jobs"):
                resp = self._t.client.query(**kwargs)
            jobs.extend(Job.model_validate(from_item(i)) for i in resp.get("Items", []))
            if not resp.get("LastEvaluatedKey"):
                break
            kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
        if len(jobs) <= limit:
            return jobs, None
        last = jobs[limit - 1]
        return jobs[:limit], {"job_id": last.job_id, "status": status.value,
                              sort_key: getattr(last, sort_key)}

    def list_by_status(self, status: JobStatus, *, limit: int = 50,
                       cursor: str | None = None) -> JobPage:
        """Jobs in one status newest first (completed: by completed_at, from the
        sparse ``status-completed_at`` index; others by created_at), with an
        opaque cursor. Raises AwsPermanentError for a cursor of another status."""
        status = JobStatus(status)
        if limit < 1:
            return JobPage(items=[], next_cursor=cursor)
        start = decode_cursor(cursor) if cursor else None
        if start is not None and start["status"] != status.value:
            raise AwsPermanentError("page cursor belongs to another status")
        jobs, last = self._query_index(status, limit, start)
        return JobPage(items=jobs, next_cursor=encode_cursor(last) if last else None)

    def list_in_progress(self, *, limit: int = 50) -> list[Job]:
        """Jobs of every in-progress status, merged, newest created first."""
        jobs: list[Job] = []
        for status in IN_PROGRESS_STATUSES:
            jobs.extend(self._query_index(status, limit, None)[0])
        jobs.sort(key=lambda j: (j.created_at, j.job_id), reverse=True)
        return jobs[:limit]

    def delete(self, job_id: str) -> None:
        """Remove the job; no error if it does not exist."""
        with translated(f"delete job {job_id}"):
            self._t.client.delete_item(TableName=self.table, Key=to_item({"job_id": job_id}))
