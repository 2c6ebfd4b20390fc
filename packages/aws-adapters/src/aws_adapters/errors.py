"""Errors of the AWS adapters, and the one place botocore errors become ours.

Every boto3 call in this package runs inside :func:`translated`, which re-raises
vendor errors (``raise ... from exc``) as the shared-types hierarchy:

- throttling, 5xx, timeouts, connection failures -> :class:`AwsTransientError`
  (a ``TransientStoreError``: retry by redelivery);
- conditional-write failures -> ``ConditionFailedError``;
- stale SQS receipt handles -> ``LeaseLostError``;
- a missing object -> ``ObjectNotFoundError``; a missing multipart upload ->
  ``UploadNotFoundError``; a missing table, queue or
  bucket -> :class:`AwsNotFoundError`;
- any other 4xx (access denied, validation) -> :class:`AwsPermanentError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from shared_types.errors import (
    ConditionFailedError,
    LeaseLostError,
    NotFoundError,
    ObjectNotFoundError,
    PermanentError,
    PermanentStoreError,
    StereoSpotError,
    TransientStoreError,
    UploadNotFoundError,
)


class AwsAdapterError(StereoSpotError):
    """Base of the errors this package defines (each also permanent or transient)."""


class AwsTransientError(AwsAdapterError, TransientStoreError):
    """AWS throttled us, failed with a 5xx, timed out or could not be reached."""


class AwsPermanentError(AwsAdapterError, PermanentStoreError):
    """AWS refused the request for good (access denied, validation, bad config)."""


class AwsNotFoundError(AwsAdapterError, NotFoundError):
    """A table, queue or bucket does not exist (a configuration mistake)."""


class MessageTooLargeError(AwsAdapterError, PermanentError):
    """A message body is over the SQS size limit."""


class NoDeadLetterQueueError(AwsAdapterError, PermanentError):
    """The queue has no redrive policy, so there is nowhere to dead-letter to."""


TRANSIENT_CODES = frozenset({
    "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottled",
    "RequestThrottledException", "TooManyRequestsException", "SlowDown",
    "ProvisionedThroughputExceededException", "RequestLimitExceeded",
    "TransactionConflictException", "InternalError", "InternalFailure",
    "InternalServerError", "ServiceUnavailable", "RequestTimeout", "RequestTimeoutException",
    "KMS.ThrottlingException", "AWS.SimpleQueueService.ServiceUnavailable",
})
CONDITION_CODES = frozenset({"ConditionalCheckFailedException", "PreconditionFailed"})
STALE_RECEIPT_CODES = frozenset({
    "ReceiptHandleIsInvalid", "AWS.SimpleQueueService.ReceiptHandleIsInvalid",
    "MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight",
})
OBJECT_MISSING_CODES = frozenset({"NoSuchKey", "404", "NotFound"})
UPLOAD_MISSING_CODES = frozenset({"NoSuchUpload"})
RESOURCE_MISSING_CODES = frozenset({
    "ResourceNotFoundException", "NoSuchBucket", "QueueDoesNotExist",
    "AWS.SimpleQueueService.NonExistentQueue", "NonExistentQueue",
})


def error_code(exc: BaseException) -> str:
    """The AWS error code of a botocore ClientError ('' for anything else)."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code", ""))
    return ""


def _http_status(exc: BaseException) -> int:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        return int(response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
    return 0


def translate(exc: Exception, what: str) -> StereoSpotError:
    """The shared-types error for a boto3/botocore exception raised while doing ``what``."""
    from botocore import exceptions as bce

    if isinstance(exc, bce.ClientError):
        code, status = error_code(exc), _http_status(exc)
        message = f"{what}: {code or status}: {exc}"
        if code in CONDITION_CODES:
            return ConditionFailedError(message)
        if code in STALE_RECEIPT_CODES:
            return LeaseLostError(message)
        if code in OBJECT_MISSING_CODES:
            return ObjectNotFoundError(message)
        if code in UPLOAD_MISSING_CODES:
            return UploadNotFoundError(message)
        if code in RESOURCE_MISSING_CODES:
            return AwsNotFoundError(message)
        if code in TRANSIENT_CODES or status >= 500 or status == 429:
            return AwsTransientError(message)
        return AwsPermanentError(message)
    if isinstance(exc, (bce.NoCredentialsError, bce.PartialCredentialsError,
                        bce.NoRegionError, bce.ParamValidationError)):
        return AwsPermanentError(f"{what}: {exc}")
    # Connection errors, read/connect timeouts and transfer retries exhausted.
    return AwsTransientError(f"{what}: {exc}")


def _vendor_errors() -> tuple[type[Exception], ...]:
    from boto3 import exceptions as b3e
    from botocore import exceptions as bce

    return (bce.ClientError, bce.BotoCoreError, b3e.Boto3Error)


@contextmanager
def translated(what: str) -> Iterator[None]:
    """Run a block of boto3 calls, re-raising vendor errors via :func:`translate`.

    Upload/download failures of boto3's transfer manager wrap the real
    ClientError; its cause is translated when there is one.
    """
    try:
        yield
    except _vendor_errors() as exc:
        cause = exc.__cause__ or exc.__context__
        inner = cause if cause is not None and isinstance(cause, _vendor_errors()) else exc
        raise translate(inner, what) from exc
