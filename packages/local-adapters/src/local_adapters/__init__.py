"""Ports on SQLite + the filesystem: the embedded default backend.

``build_backend(settings)`` wires every port; ``storage_app.storage_app(settings)``
is the ASGI app web-ui mounts at ``/storage`` to serve presigned URLs (a module
of its own, not imported here: starlette is ~0.1 s of every worker's start-up,
and only web-ui serves it).
"""

from local_adapters.backend import build_backend, make_signer
from local_adapters.db import Database
from local_adapters.errors import (
    DatabaseBusyError,
    LocalAdapterError,
    SignatureError,
    UnknownBucketError,
)
from local_adapters.jobs import SqliteJobStore
from local_adapters.notifications import NotificationRule, Notifier
from local_adapters.queue import SqliteQueue
from local_adapters.reassembly import SqliteReassemblyLock
from local_adapters.segments import SqliteSegmentCompletionStore, SqliteSegmentStatusStore
from local_adapters.signing import UrlSigner, load_or_create_secret
from local_adapters.storage import FilesystemStorage, validate_key

__all__ = [
    "Database",
    "DatabaseBusyError",
    "FilesystemStorage",
    "LocalAdapterError",
    "NotificationRule",
    "Notifier",
    "SignatureError",
    "SqliteJobStore",
    "SqliteQueue",
    "SqliteReassemblyLock",
    "SqliteSegmentCompletionStore",
    "SqliteSegmentStatusStore",
    "UnknownBucketError",
    "UrlSigner",
    "build_backend",
    "load_or_create_secret",
    "make_signer",
    "validate_key",
]
