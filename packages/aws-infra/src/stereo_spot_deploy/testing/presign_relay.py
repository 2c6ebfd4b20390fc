"""What S3 does with a presigned URL, for moto with IAM enforcement on.

moto evaluates no POST form policy (and, unpatched, cannot authorise
query-string requests while it enforces IAM; ``moto_patches`` now authorises a
presigned SigV4 URL as its signer), so the harness's "browser" sends presigned
GETs, PUTs and POST forms here
instead: the relay checks that the URL is unexpired and signed by credentials
the harness issued (for a POST form: the SigV4 signature of its policy, and
every policy condition, content-length-range included, which moto does not
evaluate), then performs the same operation on moto signed with those
credentials, so moto authorises it against the signer's role, as S3 does.
"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import email.utils
import hashlib
import hmac
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from stereo_spot_deploy.testing.loopback_server import serving


def _client(moto_url: str, creds: dict[str, str]) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3", endpoint_url=moto_url, region_name=creds.get("AWS_DEFAULT_REGION", "us-east-1"),
        aws_access_key_id=creds["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=creds["AWS_SECRET_ACCESS_KEY"],
        aws_session_token=creds.get("AWS_SESSION_TOKEN"),
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))


def _expired(query: dict[str, list[str]]) -> bool:
    signed = dt.datetime.strptime(query["X-Amz-Date"][0], "%Y%m%dT%H%M%SZ").replace(
        tzinfo=dt.UTC)
    expires = dt.timedelta(seconds=int(query["X-Amz-Expires"][0]))
    return dt.datetime.now(dt.UTC) > signed + expires


def _form_parts(content_type: str, body: bytes) -> tuple[dict[str, str], bytes]:
    """(fields before the file, names lower-cased; the file) of a multipart form."""
    message = email.message_from_bytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body, policy=email.policy.HTTP)
    fields: dict[str, str] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition") or ""
        if not isinstance(name, str):  # an RFC 2231 (charset, language, value) triple
            name = email.utils.collapse_rfc2231_value(name)
        payload = part.get_payload(decode=True) or b""
        if not isinstance(payload, bytes):
            raise ValueError(f"form field {name!r} is not a plain part")
        if name == "file":
            return fields, payload
        fields[name.lower()] = payload.decode()
    return fields, b""


def _policy_signed_by(fields: dict[str, str], creds: dict[str, str]) -> bool:
    """True when the form's x-amz-signature is SigV4 of its policy by ``creds``."""
    _, date, region, service, _ = fields["x-amz-credential"].split("/")
    key = ("AWS4" + creds["AWS_SECRET_ACCESS_KEY"]).encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    expected = hmac.new(key, fields.get("policy", "").encode(), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields.get("x-amz-signature", ""))


def check_post(bucket: str, fields: dict[str, str], data: bytes) -> None:
    """What S3 checks of a form before storing it: the policy's conditions
    (moto checks none of them). Raises PolicyViolationError, UploadTooLargeError."""
    from shared_types.models import now
    from shared_types.upload_policy import check_form, check_size, decode_policy

    document = decode_policy(fields.get("policy", ""))
    check_form(document, bucket, fields, at=now())
    check_size(document, len(data))


def make_handler(moto_url: str, credentials: dict[str, dict[str, str]]
                 ) -> type[BaseHTTPRequestHandler]:
    by_key = lambda: {c["AWS_ACCESS_KEY_ID"]: c for c in credentials.values()}  # noqa: E731

    class Handler(BaseHTTPRequestHandler):
        def _fail(self, status: int, code: str) -> None:
            body = f"<Error><Code>{code}</Code></Error>".encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _target(self) -> tuple[Any, str, str] | None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            if "X-Amz-Credential" not in query:
                self._fail(403, "AccessDenied")
                return None
            creds = by_key().get(query["X-Amz-Credential"][0].split("/")[0])
            if creds is None:
                self._fail(403, "InvalidAccessKeyId")
                return None
            if _expired(query):
                self._fail(403, "AccessDenied")
                return None
            bucket, _, key = parts.path.lstrip("/").partition("/")
            return _client(moto_url, creds), bucket, unquote(key)

        def do_GET(self) -> None:  # noqa: N802
            from botocore.exceptions import ClientError

            target = self._target()
            if target is None:
                return
            client, bucket, key = target
            extra = {"Range": self.headers["Range"]} if self.headers.get("Range") else {}
            try:
                obj = client.get_object(Bucket=bucket, Key=key, **extra)
            except ClientError as exc:
                status = exc.response["ResponseMetadata"]["HTTPStatusCode"]
                return self._fail(status, exc.response["Error"]["Code"])
            data = obj["Body"].read()
            self.send_response(206 if extra else 200)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Content-Type", obj.get("ContentType", "binary/octet-stream"))
            self.end_headers()
            self.wfile.write(data)

        def do_PUT(self) -> None:  # noqa: N802
            from botocore.exceptions import ClientError

            target = self._target()
            if target is None:
                return
            client, bucket, key = target
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            query = parse_qs(urlsplit(self.path).query)
            try:
                if "uploadId" in query:  # one part of a multipart upload
                    resp = client.upload_part(
                        Bucket=bucket, Key=key, Body=body, UploadId=query["uploadId"][0],
                        PartNumber=int(query["partNumber"][0]))
                else:
                    extra = ({"ContentType": self.headers["Content-Type"]}
                             if self.headers.get("Content-Type") else {})
                    resp = client.put_object(Bucket=bucket, Key=key, Body=body, **extra)
            except ClientError as exc:
                status = exc.response["ResponseMetadata"]["HTTPStatusCode"]
                return self._fail(status, exc.response["Error"]["Code"])
            self.send_response(200)
            self.send_header("ETag", resp.get("ETag", ""))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:  # noqa: N802 (a presigned POST form, as S3 takes it)
            from botocore.exceptions import ClientError
            from shared_types.errors import PolicyViolationError, UploadTooLargeError

            bucket = urlsplit(self.path).path.strip("/")
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            fields, data = _form_parts(self.headers.get("Content-Type", ""), body)
            creds = by_key().get(fields.get("x-amz-credential", "").split("/")[0])
            if creds is None or not _policy_signed_by(fields, creds):
                return self._fail(403, "AccessDenied")
            try:
                check_post(bucket, fields, data)
            except UploadTooLargeError:
                return self._fail(400, "EntityTooLarge")
            except PolicyViolationError:
                return self._fail(403, "AccessDenied")
            extra = {"ContentType": fields["content-type"]} if "content-type" in fields else {}
            try:
                _client(moto_url, creds).put_object(Bucket=bucket, Key=fields["key"],
                                                    Body=data, **extra)
            except ClientError as exc:
                status = exc.response["ResponseMetadata"]["HTTPStatusCode"]
                return self._fail(status, exc.response["Error"]["Code"])
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: Any) -> None:
            pass

    return Handler


@contextmanager
def presign_relay(moto_url: str, credentials: dict[str, dict[str, str]]) -> Iterator[str]:
    """Serve the relay on 127.0.0.1 while the block runs; yields its base URL.
    ``credentials`` (role -> AWS_* env) may grow meanwhile."""
    with serving(make_handler(moto_url, credentials)) as url:
        yield url


def via_relay(presigned_url: str, relay_url: str) -> str:
    """The presigned URL re-pointed at the relay (path and query unchanged)."""
    parts = urlsplit(presigned_url)
    return f"{relay_url}{parts.path}?{parts.query}"
