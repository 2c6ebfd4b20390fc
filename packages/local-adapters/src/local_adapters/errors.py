"""Errors of the local embedded backend, classified under shared_types' hierarchy.

``LocalAdapterError`` is the one base; each concrete error also subclasses the
shared permanent or transient class so workers classify it without knowing it.
"""

from shared_types.errors import PermanentError, StereoSpotError, TransientStoreError


class LocalAdapterError(StereoSpotError):
    """Base of every error raised by ``local_adapters``."""


class DatabaseBusyError(LocalAdapterError, TransientStoreError):
    """SQLite stayed locked or failed with an I/O error; retrying may work."""


class UnknownBucketError(LocalAdapterError, PermanentError):
    """A presigned URL or request names a bucket this backend does not have."""


class SignatureError(LocalAdapterError, PermanentError):
    """A presigned URL is tampered with, malformed, for another operation, or expired."""
