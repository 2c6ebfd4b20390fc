"""ReassemblyLock on DynamoDB (table ReassemblyTriggered, PK ``job_id``).

One row per job:

- ``trigger`` is a conditional create, or a conditional update when the row
  exists (no ``triggered_at`` yet, or a smaller ``triggered_epoch``), so at
  most one video-worker sends the reassembly message per epoch (Retry bumps
  the job's epoch; the row is never deleted, so the fencing token keeps growing);
- ``take_lease`` is a conditional update that succeeds only when nobody holds
  an unexpired lease and the job is not done; each success increments
  ``lease_token`` (a fencing token);
- ``renew`` and ``complete`` are conditional on the caller's token, so a worker
  whose lease was retaken can neither extend it nor mark the job done.

``ttl`` (epoch seconds, 90 days on) lets DynamoDB TTL expire old rows. Lease
expiry is compared with the caller's clock, so workers need roughly synced
clocks (NTP on ECS is well within a lease of minutes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from shared_types.errors import ConditionFailedError, LeaseLostError
from shared_types.models import Lease

from aws_adapters.dynamo_table import DynamoTable, from_item, to_item, to_values
from aws_adapters.errors import translated

TTL_S = 90 * 86400
_NAMES = {"#owner": "lease_owner", "#expires": "lease_expires_at", "#token": "lease_token",
          "#done": "completed_at", "#ttl": "ttl", "#triggered": "triggered_at",
          "#epoch": "triggered_epoch"}


class DynamoReassemblyLock:
    """Reassembly trigger and lease rows in one DynamoDB table."""

    def __init__(self, table: str, *, client: Any = None, region: str | None = None,
                 endpoint_url: str | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self._t = DynamoTable(table, client=client, region=region, endpoint_url=endpoint_url)
        self._clock = clock

    def _update(self, job_id: str, what: str, expression: str, condition: str,
                values: dict[str, Any]) -> dict[str, Any]:
        names = {k: v for k, v in _NAMES.items() if k in expression or k in condition}
        with translated(f"{what} reassembly of job {job_id}"):
            resp = self._t.client.update_item(
                TableName=self._t.table, Key=to_item({"job_id": job_id}),
                UpdateExpression=expression, ConditionExpression=condition,
                ExpressionAttributeNames=names, ExpressionAttributeValues=to_values(values),
                ReturnValues="ALL_NEW")
        return from_item(resp["Attributes"])

    def trigger(self, job_id: str, epoch: int = 0) -> bool:
        """Record the trigger of ``epoch``; True only for the one caller that recorded it.

        A conditional create first (the common case: one PutItem); when the row
        exists (a lease, or an earlier epoch) a conditional UpdateItem.
        """
        t = self._clock()
        try:
            with translated(f"trigger reassembly of job {job_id}"):
                self._t.client.put_item(
                    TableName=self._t.table,
                    Item=to_item({"job_id": job_id, "triggered_at": t, "triggered_epoch": epoch,
                                  "lease_token": 0, "ttl": int(t) + TTL_S}),
                    ConditionExpression="attribute_not_exists(job_id)")
            return True
        except ConditionFailedError:
            pass
        try:
            self._update(job_id, "trigger", "SET #triggered = :now, #epoch = :epoch",
                         "attribute_not_exists(#triggered) OR #epoch < :epoch",
                         {":now": t, ":epoch": epoch})
        except ConditionFailedError:
            return False
        return True

    def is_triggered(self, job_id: str) -> bool:
        """True once trigger() succeeded for some epoch."""
        row = self._t.get({"job_id": job_id})
        return bool(row and row.get("triggered_at") is not None)

    def take_lease(self, job_id: str, owner: str, lease_s: float) -> Lease | None:
        """Claim reassembly for ``lease_s`` seconds; None when another owner
        holds an unexpired lease or reassembly is done. Creates the row if needed."""
        t = self._clock()
        try:
            row = self._update(
                job_id, "take lease on",
                "SET #owner = :owner, #expires = :expires, "
                "#token = if_not_exists(#token, :zero) + :one, #ttl = if_not_exists(#ttl, :ttl)",
                "attribute_not_exists(#done) AND "
                "(attribute_not_exists(#expires) OR #expires <= :now)",
                {":owner": owner, ":expires": t + lease_s, ":zero": 0, ":one": 1,
                 ":ttl": int(t) + TTL_S, ":now": t})
        except ConditionFailedError:
            return None
        return Lease(job_id=job_id, owner=owner, token=row["lease_token"],
                     expires_at=row["lease_expires_at"])

    def renew(self, lease: Lease, lease_s: float) -> Lease:
        """Extend a held lease. Raises LeaseLostError if it was retaken or done."""
        expires = self._clock() + lease_s
        try:
            self._update(lease.job_id, "renew lease on", "SET #expires = :expires",
                         "#token = :token AND attribute_not_exists(#done)",
                         {":expires": expires, ":token": lease.token})
        except ConditionFailedError as exc:
            raise LeaseLostError(f"reassembly lease of job {lease.job_id} "
                                 f"(token {lease.token}) was lost") from exc
        return lease.model_copy(update={"expires_at": expires})

    def complete(self, lease: Lease) -> None:
        """Mark reassembly done. Raises LeaseLostError unless ``lease`` is still
        the current one (a stale holder cannot complete)."""
        try:
            self._update(lease.job_id, "complete", "SET #done = :now",
                         "#token = :token AND attribute_not_exists(#done)",
                         {":now": self._clock(), ":token": lease.token})
        except ConditionFailedError as exc:
            raise LeaseLostError(f"reassembly lease of job {lease.job_id} "
                                 f"(token {lease.token}) was lost") from exc

    def is_done(self, job_id: str) -> bool:
        """True after complete()."""
        row = self._t.get({"job_id": job_id})
        return bool(row and row.get("completed_at") is not None)

    def reset(self, job_id: str) -> None:
        """Delete the row (only when the job itself is deleted)."""
        with translated(f"reset reassembly of job {job_id}"):
            self._t.client.delete_item(TableName=self._t.table, Key=to_item({"job_id": job_id}))
