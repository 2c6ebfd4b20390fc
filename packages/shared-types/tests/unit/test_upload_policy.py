"""The presigned POST policy: its document, and how a form is checked against it."""

import pytest

from shared_types.errors import PolicyViolationError, UploadTooLargeError, UploadTooSmallError
from shared_types.upload_policy import (
    check_form,
    check_size,
    decode_policy,
    encode_policy,
    policy_document,
    post_fields,
    size_range,
)

NOW = 1_800_000_000.0


def _doc(**fields):
    return policy_document("bucket", "input/j/source.mp4", max_bytes=100,
                           expires_at=NOW + 60, fields=fields)


def test_the_document_round_trips_and_names_its_size_range():
    doc = _doc(**post_fields("video/mp4", None))
    assert decode_policy(encode_policy(doc)) == doc
    assert size_range(doc) == (1, 100)
    assert doc["expiration"].endswith("Z")


def test_a_form_with_exactly_the_signed_fields_is_accepted_in_any_letter_case():
    doc = _doc(**{"Content-Type": "video/mp4"})
    check_form(doc, "bucket", {"key": "input/j/source.mp4", "content-type": "video/mp4",
                               "policy": "p", "x-amz-signature": "s", "x-ignore-me": "1"}, at=NOW)


@pytest.mark.parametrize("fields, at, why", [
    ({"key": "input/j/source.mp4"}, NOW + 61, "expired"),
    ({"key": "input/other/source.mp4"}, NOW, "Condition failed"),
    ({"key": "input/j/source.mp4", "acl": "public-read"}, NOW, "Extra input fields: acl"),
])
def test_a_form_breaking_its_policy_is_refused(fields, at, why):
    with pytest.raises(PolicyViolationError, match=why):
        check_form(_doc(), "bucket", fields, at=at)


def test_a_form_for_another_bucket_is_refused():
    with pytest.raises(PolicyViolationError):
        check_form(_doc(), "other", {"key": "input/j/source.mp4"}, at=NOW)


def test_eq_and_starts_with_conditions_are_evaluated():
    doc = {"expiration": "2030-01-01T00:00:00Z", "conditions": [
        ["starts-with", "$key", "input/"], ["eq", "$Content-Type", "video/mp4"]]}
    check_form(doc, "b", {"key": "input/x", "Content-Type": "video/mp4"}, at=NOW)
    with pytest.raises(PolicyViolationError):
        check_form(doc, "b", {"key": "jobs/x", "Content-Type": "video/mp4"}, at=NOW)


def test_the_size_range_bounds_the_file_both_ways():
    check_size(_doc(), 100)
    with pytest.raises(UploadTooLargeError):
        check_size(_doc(), 101)
    with pytest.raises(UploadTooSmallError):
        check_size(_doc(), 0)


@pytest.mark.parametrize("text", ["not base64!", "e30=", "eyJjb25kaXRpb25zIjogW119"])
def test_a_malformed_policy_is_a_clear_error(text):
    with pytest.raises(PolicyViolationError):
        decode_policy(text)
