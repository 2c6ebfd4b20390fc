"""Signed URLs: what is signed cannot be changed, and URLs expire."""

from urllib.parse import parse_qsl, urlsplit

import pytest

from local_adapters.errors import SignatureError
from local_adapters.signing import UrlSigner

SIGNER = UrlSigner(b"s3cret", "http://host:8000/")


def query_of(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


def test_a_signed_url_verifies_and_carries_its_limits():
    url, exp = SIGNER.sign("put", "in", "input/j/source.mp4", expires_s=60, max_bytes=99)
    assert url.startswith("http://host:8000/storage/in/input/j/source.mp4?")
    signed = SIGNER.verify("in", "input/j/source.mp4", query_of(url), op="put")
    assert (signed.max_bytes, signed.expires_at, signed.download_name) == (99, exp, None)


@pytest.mark.parametrize(("field", "value"), [
    ("max", "1000000"), ("exp", "99999999999"), ("sig", "0" * 64), ("dl", "x.mp4"),
])
def test_changing_any_signed_field_is_refused(field, value):
    url, _ = SIGNER.sign("put", "in", "k.mp4", expires_s=60, max_bytes=10)
    query = query_of(url) | {field: value}
    with pytest.raises(SignatureError, match="signature"):
        SIGNER.verify("in", "k.mp4", query, op="put")


def test_a_url_for_another_key_bucket_or_secret_is_refused():
    url, _ = SIGNER.sign("get", "out", "a.mp4", expires_s=60)
    with pytest.raises(SignatureError):
        SIGNER.verify("out", "b.mp4", query_of(url), op="get")
    with pytest.raises(SignatureError):
        SIGNER.verify("in", "a.mp4", query_of(url), op="get")
    with pytest.raises(SignatureError):
        UrlSigner(b"other", "http://host").verify("out", "a.mp4", query_of(url), op="get")


def test_a_get_url_cannot_be_used_to_put():
    url, _ = SIGNER.sign("get", "out", "a.mp4", expires_s=60)
    with pytest.raises(SignatureError, match="allows 'get'"):
        SIGNER.verify("out", "a.mp4", query_of(url), op="put")


def test_an_expired_url_is_refused():
    url, _ = SIGNER.sign("get", "out", "a.mp4", expires_s=-5)
    with pytest.raises(SignatureError, match="expired"):
        SIGNER.verify("out", "a.mp4", query_of(url), op="get")


def test_missing_expiry_is_refused_with_a_reason():
    with pytest.raises(SignatureError, match="expiry"):
        SIGNER.verify("out", "a.mp4", {"op": "get", "sig": "x"}, op="get")


def test_empty_secret_and_unknown_operation_are_rejected():
    with pytest.raises(ValueError):
        UrlSigner(b"", "http://h")
    with pytest.raises(ValueError):
        SIGNER.sign("delete", "b", "k", expires_s=1)
