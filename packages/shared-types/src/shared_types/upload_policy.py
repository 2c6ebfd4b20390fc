"""The policy of a presigned POST upload (S3's browser-form upload), on every backend.

A presigned POST is an HTML form: fields (``key``, ``policy``, a signature, ...)
then the file. The policy is a base64 JSON document
``{"expiration": ISO-8601, "conditions": [...]}`` signed by the backend; the
storage refuses a form that breaks a condition, and ``content-length-range``
bounds the file's size, so the size cap is enforced by the storage itself.
S3 evaluates it on AWS; the local ``/storage`` endpoint evaluates the same
document with :func:`check_form` and :func:`check_size`.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
from typing import Any

from shared_types.errors import PolicyViolationError, UploadTooLargeError, UploadTooSmallError

SIZE_CONDITION = "content-length-range"
# Form fields S3 never requires a condition for (the file, the policy itself,
# the signature fields and anything named x-ignore-*).
UNCONDITIONED = ("file", "policy", "x-amz-signature", "x-stereo-signature")


def post_fields(content_type: str | None, success_redirect: str | None) -> dict[str, str]:
    """The form fields (each also a policy condition) for an upload's content
    type and the page the storage redirects to after it."""
    fields = {"Content-Type": content_type, "success_action_redirect": success_redirect}
    return {name: value for name, value in fields.items() if value}


def policy_document(bucket: str, key: str, *, max_bytes: int, expires_at: float,
                    fields: dict[str, str] | None = None) -> dict[str, Any]:
    """The policy for one upload to ``bucket/key`` of 1..``max_bytes`` bytes,
    requiring each of ``fields`` with exactly its value."""
    expiration = dt.datetime.fromtimestamp(expires_at, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    conditions: list[Any] = [{"bucket": bucket}, {"key": key}, [SIZE_CONDITION, 1, int(max_bytes)]]
    conditions += [{name: value} for name, value in (fields or {}).items()]
    return {"expiration": expiration, "conditions": conditions}


def encode_policy(document: dict[str, Any]) -> str:
    """The base64 text a form carries as its ``policy`` field."""
    return base64.b64encode(json.dumps(document, separators=(",", ":")).encode()).decode()


def decode_policy(text: str) -> dict[str, Any]:
    """The document of a ``policy`` field. Raises PolicyViolationError when it
    is not base64 JSON with an expiration and a list of conditions."""
    try:
        document = json.loads(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise PolicyViolationError("the policy is not base64 JSON") from exc
    if not isinstance(document, dict) or not isinstance(document.get("conditions"), list):
        raise PolicyViolationError("the policy has no list of conditions")
    if not isinstance(document.get("expiration"), str):
        raise PolicyViolationError("the policy has no expiration")
    return document


def size_range(document: dict[str, Any]) -> tuple[int, int] | None:
    """(min, max) bytes of the policy's content-length-range, or None."""
    for cond in document["conditions"]:
        if isinstance(cond, list) and len(cond) == 3 and str(cond[0]).lower() == SIZE_CONDITION:
            return int(cond[1]), int(cond[2])
    return None


def _expired(document: dict[str, Any], at: float) -> bool:
    try:
        when = dt.datetime.fromisoformat(document["expiration"].replace("Z", "+00:00"))
    except ValueError as exc:
        raise PolicyViolationError("the policy's expiration is not a date") from exc
    return when.timestamp() < at


def _holds(cond: Any, values: dict[str, str]) -> tuple[str | None, bool]:
    """(field it names, whether it holds) for one condition."""
    if isinstance(cond, dict) and len(cond) == 1:
        (name, want), = cond.items()
        return name.lower(), values.get(name.lower()) == want
    if isinstance(cond, list) and len(cond) == 3 and str(cond[0]).lower() in ("eq", "starts-with"):
        name = str(cond[1]).lstrip("$").lower()
        have = values.get(name)
        if cond[0].lower() == "eq":
            return name, have == cond[2]
        return name, have is not None and have.startswith(str(cond[2]))
    if isinstance(cond, list) and len(cond) == 3 and str(cond[0]).lower() == SIZE_CONDITION:
        return None, True  # checked against the file by check_size
    raise PolicyViolationError(f"unsupported policy condition {cond!r}")


def check_form(document: dict[str, Any], bucket: str, fields: dict[str, str], *,
               at: float) -> None:
    """Accept the form's fields (names case-insensitive) under ``document`` at
    time ``at``, as S3 does: unexpired, every condition holds, and every field
    is named by a condition. Raises PolicyViolationError."""
    if _expired(document, at):
        raise PolicyViolationError("Invalid according to Policy: Policy expired.")
    values = {name.lower(): value for name, value in fields.items()}
    values["bucket"] = bucket
    named = set()
    for cond in document["conditions"]:
        name, ok = _holds(cond, values)
        if not ok:
            raise PolicyViolationError(f"Invalid according to Policy: Policy Condition failed: "
                                       f"{json.dumps(cond)}")
        if name:
            named.add(name)
    extra = [name for name in values if name not in named and name != "bucket"
             and name not in UNCONDITIONED and not name.startswith("x-ignore-")]
    if extra:
        raise PolicyViolationError(f"Invalid according to Policy: Extra input fields: {extra[0]}")


def check_size(document: dict[str, Any], size: int) -> None:
    """Accept a file of ``size`` bytes under the policy's content-length-range.
    Raises UploadTooLargeError (S3's EntityTooLarge), UploadTooSmallError."""
    bounds = size_range(document)
    if bounds is None:
        return
    low, high = bounds
    if size > high:
        raise UploadTooLargeError(f"Your proposed upload exceeds the maximum allowed size "
                                  f"({size} > {high} bytes)")
    if size < low:
        raise UploadTooSmallError(f"Your proposed upload is smaller than the minimum allowed "
                                  f"size ({size} < {low} bytes)")
