"""Shared plumbing of the DynamoDB adapters: item encoding, paging, batch delete.

DynamoDB stores numbers as Decimal; StereoSpot timestamps are float epoch
seconds. :func:`to_item` writes floats as exact decimals (``repr`` round-trips)
and :func:`from_item` reads integral numbers back as int, others as float.
``None`` values are never written (a GSI key attribute cannot be NULL).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

from aws_adapters.clients import make_client
from aws_adapters.errors import AwsTransientError, translated

BATCH_WRITE_MAX = 25


def _to_dynamo(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, (str, int, Decimal)):
        return value
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, Mapping):
        return {k: _to_dynamo(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_to_dynamo(v) for v in value]
    return str(value)  # enums (StrEnum) and anything else printable


def _from_dynamo(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {k: _from_dynamo(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_dynamo(v) for v in value]
    return value


def to_item(data: Mapping[str, Any]) -> dict[str, dict]:
    """A DynamoDB low-level item (``{"name": {"S": ...}}``) from plain values."""
    from boto3.dynamodb.types import TypeSerializer

    ser = TypeSerializer()
    return {k: ser.serialize(_to_dynamo(v)) for k, v in data.items() if v is not None}


def to_values(data: Mapping[str, Any]) -> dict[str, dict]:
    """ExpressionAttributeValues from plain values (``None`` is not allowed here)."""
    from boto3.dynamodb.types import TypeSerializer

    ser = TypeSerializer()
    return {k: ser.serialize(_to_dynamo(v)) for k, v in data.items()}


def from_item(item: Mapping[str, dict]) -> dict[str, Any]:
    """Plain values from a DynamoDB low-level item."""
    from boto3.dynamodb.types import TypeDeserializer

    de = TypeDeserializer()
    return {k: _from_dynamo(de.deserialize(v)) for k, v in item.items()}


class DynamoTable:
    """One DynamoDB table and a thread-safe low-level client."""

    def __init__(self, table: str, *, client: Any = None, region: str | None = None,
                 endpoint_url: str | None = None) -> None:
        self.table = table
        self.client = client or make_client("dynamodb", region=region, endpoint_url=endpoint_url)

    def get(self, key: Mapping[str, Any]) -> dict[str, Any] | None:
        """The item with ``key`` (strongly consistent read), or None.
        Raises AwsTransientError / AwsNotFoundError (no table)."""
        with translated(f"get {self.table} {dict(key)}"):
            resp = self.client.get_item(TableName=self.table, Key=to_item(key),
                                        ConsistentRead=True)
        item = resp.get("Item")
        return from_item(item) if item else None

    def _pages(self, name: str, value: Any, extra: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Every response page of a Query for one partition (strongly consistent)."""
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": name},
            "ExpressionAttributeValues": to_values({":pk": value}),
            "ConsistentRead": True,
            **extra,
        }
        while True:
            with translated(f"query {self.table} {name}={value}"):
                resp = self.client.query(**kwargs)
            yield resp
            last = resp.get("LastEvaluatedKey")
            if not last:
                return
            kwargs["ExclusiveStartKey"] = last

    def query_partition(self, name: str, value: Any, **extra: Any) -> Iterator[dict[str, Any]]:
        """Every item whose partition key ``name`` equals ``value``, in sort-key
        order, following pagination. Raises AwsTransientError."""
        for page in self._pages(name, value, extra):
            for item in page.get("Items", []):
                yield from_item(item)

    def count_partition(self, name: str, value: Any) -> int:
        """Number of items in one partition (a paginated COUNT query)."""
        return sum(int(page.get("Count", 0))
                   for page in self._pages(name, value, {"Select": "COUNT"}))

    def delete_item(self, key: dict[str, Any]) -> None:
        """Delete one item, no error if absent: a one-item BatchWriteItem, the
        action a role that deletes whole partitions already holds (no DeleteItem
        to grant). Raises AwsTransientError."""
        for attempt in range(10):
            if attempt:
                time.sleep(min(1.0, 0.05 * 2 ** attempt))
            with translated(f"delete {self.table} {key}"):
                resp = self.client.batch_write_item(
                    RequestItems={self.table: [{"DeleteRequest": {"Key": to_item(key)}}]})
            if not resp.get("UnprocessedItems"):
                return
        raise AwsTransientError(f"could not delete {key} from {self.table}: throttled")

    def delete_partition(self, pk: str, sk: str, value: Any) -> None:
        """Delete every item of one partition (BatchWriteItem, retrying
        unprocessed items). Raises AwsTransientError."""
        keys = [{pk: row[pk], sk: row[sk]} for row in self.query_partition(
            pk, value, ProjectionExpression="#pk, #sk",
            ExpressionAttributeNames={"#pk": pk, "#sk": sk})]
        for start in range(0, len(keys), BATCH_WRITE_MAX):
            requests = [{"DeleteRequest": {"Key": to_item(k)}}
                        for k in keys[start:start + BATCH_WRITE_MAX]]
            pending: dict[str, list] = {self.table: requests}
            for attempt in range(10):
                if attempt:
                    time.sleep(min(1.0, 0.05 * 2 ** attempt))
                with translated(f"batch delete {self.table} {pk}={value}"):
                    resp = self.client.batch_write_item(RequestItems=pending)
                pending = resp.get("UnprocessedItems") or {}
                if not pending:
                    break
            if pending:
                raise AwsTransientError(f"could not delete every item of {pk}={value} "
                                        f"in {self.table}: throttled")
