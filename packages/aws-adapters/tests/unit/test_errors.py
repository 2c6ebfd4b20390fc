"""Vendor errors become the shared-types hierarchy, with the cause chained."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ParamValidationError
from shared_types.errors import (
    ConditionFailedError,
    LeaseLostError,
    ObjectNotFoundError,
    PermanentError,
    TransientError,
)

from aws_adapters.errors import (
    AwsNotFoundError,
    AwsPermanentError,
    AwsTransientError,
    translate,
    translated,
)


def client_error(code: str, status: int = 400) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "m"},
                        "ResponseMetadata": {"HTTPStatusCode": status}}, "Op")


@pytest.mark.parametrize(("code", "status", "kind"), [
    ("ProvisionedThroughputExceededException", 400, AwsTransientError),
    ("ThrottlingException", 400, AwsTransientError),
    ("SlowDown", 503, AwsTransientError),
    ("Whatever", 500, AwsTransientError),
    ("Whatever", 429, AwsTransientError),
    ("ConditionalCheckFailedException", 400, ConditionFailedError),
    ("ReceiptHandleIsInvalid", 400, LeaseLostError),
    ("NoSuchKey", 404, ObjectNotFoundError),
    ("404", 404, ObjectNotFoundError),
    ("ResourceNotFoundException", 400, AwsNotFoundError),
    ("AWS.SimpleQueueService.NonExistentQueue", 400, AwsNotFoundError),
    ("AccessDenied", 403, AwsPermanentError),
    ("ValidationException", 400, AwsPermanentError),
])
def test_client_errors_are_classified_by_code_and_status(code, status, kind):
    err = translate(client_error(code, status), "doing it")
    assert type(err) is kind
    assert "doing it" in str(err)


def test_transient_and_permanent_are_what_callers_classify_on():
    assert isinstance(translate(client_error("SlowDown", 503), "x"), TransientError)
    assert isinstance(translate(client_error("AccessDenied", 403), "x"), PermanentError)
    assert isinstance(translate(client_error("ResourceNotFoundException"), "x"), PermanentError)


def test_connection_failures_are_transient_and_bad_parameters_permanent():
    assert isinstance(translate(EndpointConnectionError(endpoint_url="http://x"), "x"),
                      AwsTransientError)
    assert isinstance(translate(ParamValidationError(report="bad"), "x"), AwsPermanentError)


def test_translated_chains_the_vendor_error():
    original = client_error("ThrottlingException")
    with pytest.raises(AwsTransientError) as caught:
        with translated("read the jobs table"):
            raise original
    assert caught.value.__cause__ is original


def test_translated_lets_our_own_errors_through():
    with pytest.raises(KeyError):
        with translated("x"):
            raise KeyError("not a vendor error")


def test_every_error_is_permanent_or_transient_never_both():
    from shared_types.testing.error_tree import misclassified

    from aws_adapters import errors

    assert misclassified(errors) == []
