"""The identity an AWS load balancer vouches for: its signed ``x-amzn-oidc-data``.

An ALB listener whose action is ``authenticate-oidc`` (Cognito or any OIDC
provider) signs in the person, then forwards each request with the header
``x-amzn-oidc-data``: a JWT signed with ES256 by the load balancer itself.
Its header names the key (``kid``), the load balancer (``signer``, its ARN) and
an expiry (``exp``); its payload holds the provider's user claims (``sub``,
``email``, groups). The public key of ``kid`` is published at
``https://public-keys.auth.elb.{region}.amazonaws.com/{kid}`` as PEM.

Anyone who can reach the web UI's port directly could forge the header, so
it is believed only when its signature verifies with the key of its ``kid``,
the signer is exactly this deployment's load balancer and it has not expired.
Where the keys come from is a port (:class:`AlbKeySource`): tests give a key
of their own.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
import urllib.request
from typing import Any, Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from web_ui.errors import SignInError

HEADER = "x-amzn-oidc-data"
AWS_KEYS_URL = "https://public-keys.auth.elb.{region}.amazonaws.com/{kid}"
MAX_TOKEN_LENGTH = 16_384
CLOCK_SKEW_S = 60.0
_KID_RE = re.compile(r"^[A-Za-z0-9-]{1,128}$")


class AlbKeySource(Protocol):
    def public_key_pem(self, kid: str) -> bytes:
        """The PEM public key the load balancer signs with under ``kid``.
        Raises SignInError when there is none."""


class HttpAlbKeys:
    """The keys AWS publishes for a region, each fetched once and then cached
    (a key id names one key forever)."""

    def __init__(self, region: str, *, url_template: str = AWS_KEYS_URL,
                 timeout_s: float = 5.0) -> None:
        self.region = region
        self.url_template = url_template
        self.timeout_s = timeout_s
        self._cache: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def public_key_pem(self, kid: str) -> bytes:
        if not _KID_RE.match(kid):  # it goes into a URL: nothing but a key id
            raise SignInError("The sign-in token names a malformed key.")
        with self._lock:
            if kid in self._cache:
                return self._cache[kid]
        url = self.url_template.format(region=self.region, kid=kid)
        try:
            with urllib.request.urlopen(url, timeout=self.timeout_s) as response:  # noqa: S310
                pem = response.read(16_384)
        except OSError as exc:
            raise SignInError(f"The load balancer's key {kid} could not be read.") from exc
        with self._lock:
            self._cache[kid] = pem
        return pem


def _b64(part: str) -> bytes:
    # ALB pads its base64url parts; other JWTs do not: accept both
    try:
        return base64.urlsafe_b64decode(part.rstrip("=") + "=" * (-len(part.rstrip("=")) % 4))
    except (binascii.Error, ValueError) as exc:
        raise SignInError("The sign-in token is not base64.") from exc


def _json(part: str) -> dict[str, Any]:
    try:
        value = json.loads(_b64(part))
    except (ValueError, UnicodeDecodeError) as exc:
        raise SignInError("The sign-in token is not JSON.") from exc
    if not isinstance(value, dict):
        raise SignInError("The sign-in token is not a JSON object.")
    return value


def _check_signature(pem: bytes, signed: bytes, signature: bytes) -> None:
    if len(signature) != 64:
        raise SignInError("The sign-in token's signature is not ES256.")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"),
                               int.from_bytes(signature[32:], "big"))
    try:
        key = load_pem_public_key(pem)
        if not isinstance(key, ec.EllipticCurvePublicKey):
            raise SignInError("The load balancer's key is not an EC key.")
        key.verify(der, signed, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as exc:
        raise SignInError("The sign-in token's signature does not verify.") from exc
    except ValueError as exc:
        raise SignInError("The load balancer's key is not a PEM public key.") from exc


def verify_alb_token(token: str, keys: AlbKeySource, *, signer_arn: str,
                     now: float) -> dict[str, Any]:
    """The user claims of a valid ``x-amzn-oidc-data`` token. Raises
    SignInError when it is malformed, not ES256, signed by another load
    balancer or with another key, or expired."""
    if len(token) > MAX_TOKEN_LENGTH or token.count(".") != 2:
        raise SignInError("The sign-in token is malformed.")
    head_part, body_part, sig_part = token.split(".")
    header = _json(head_part)
    if header.get("alg") != "ES256":
        raise SignInError("The sign-in token is not signed with ES256.")
    if header.get("signer") != signer_arn:
        raise SignInError("The sign-in token was signed by another load balancer.")
    kid = header.get("kid")
    if not isinstance(kid, str):
        raise SignInError("The sign-in token names no key.")
    _check_signature(keys.public_key_pem(kid), f"{head_part}.{body_part}".encode(),
                     _b64(sig_part))
    claims = _json(body_part)
    exp = header.get("exp", claims.get("exp"))
    if not isinstance(exp, int | float) or exp + CLOCK_SKEW_S < now:
        raise SignInError("The sign-in has expired; reload the page to sign in again.")
    if not isinstance(claims.get("sub"), str) or not claims["sub"]:
        raise SignInError("The sign-in token names no user.")
    return claims
