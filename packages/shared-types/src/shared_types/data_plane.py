"""The data plane's one definition: queues, tables, visibility timeouts, retry limit.

``data_plane.json`` beside this module is read here for the code (the moto
provisioner, the local backend, the consumers' attempt limits) and by Terraform
(``packages/aws-infra/modules/data-plane`` with ``jsondecode(file(...))``), so a
queue, a table, a visibility timeout or the retry limit is written once.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

DEFINITION = Path(__file__).with_name("data_plane.json")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class QueueSpec(_Frozen):
    """One work queue (each has a ``-dlq`` beside it)."""

    # Sized to one unit of work before the consumer's heartbeat extends it; the
    # lease a receive asks for overrides it, this is what any other receive gets.
    visibility_s: int = Field(gt=0, le=43_200)


class IndexSpec(_Frozen):
    """A global secondary index: a string hash key and a numeric range key."""

    hash_key: str
    range_key: str


class TableSpec(_Frozen):
    """One table: its key schema, its indexes, and its TTL attribute if rows expire."""

    hash_key: str
    range_key: str | None = None  # numeric where present
    indexes: dict[str, IndexSpec] = {}
    ttl_attribute: str | None = None


class DataPlane(_Frozen):
    """Everything ``data_plane.json`` defines."""

    about: str = Field(alias="_about")
    # Receives of one message before it is dead-lettered; a consumer fails the job
    # on its last receive, so the two limits are this one number.
    max_receives: int = Field(ge=1, le=1000)
    message_retention_s: int = Field(gt=0)
    dlq_retention_s: int = Field(gt=0)
    queues: dict[str, QueueSpec]
    tables: dict[str, TableSpec]


@cache
def data_plane() -> DataPlane:
    """The parsed definition. Raises pydantic.ValidationError if the file is malformed."""
    return DataPlane.model_validate(json.loads(DEFINITION.read_text(encoding="utf-8")))


DATA_PLANE = data_plane()
MAX_RECEIVES = DATA_PLANE.max_receives
