"""A stand-in for the AWS load balancer's sign-in, for tests: a key pair of its
own that signs ``x-amzn-oidc-data`` tokens the way the ALB does (ES256, the
signer's ARN and an expiry in the header, padded base64url), and serves its
public key as the :class:`~web_ui.alb_token.AlbKeySource` port."""

from __future__ import annotations

import base64
import json
import time
import uuid
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from web_ui.errors import SignInError

TEST_ALB_ARN = ("arn:aws:elasticloadbalancing:us-east-1:123456789012:"
                "loadbalancer/app/stereo-spot/0123456789abcdef")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode()  # padded, as the ALB sends it


class FakeAlb:
    """Signs identities for users; its public key is the only one it serves."""

    def __init__(self, signer_arn: str = TEST_ALB_ARN) -> None:
        self.signer_arn = signer_arn
        self.kid = str(uuid.uuid4())
        self._key = ec.generate_private_key(ec.SECP256R1())

    def public_key_pem(self, kid: str) -> bytes:
        if kid != self.kid:
            raise SignInError(f"no key {kid}")
        return self._key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    def token(self, sub: str, *, email: str | None = None, groups: list[str] | None = None,
              expires_in_s: float = 3600, signer_arn: str | None = None,
              claims: dict[str, Any] | None = None) -> str:
        """The ``x-amzn-oidc-data`` value for user ``sub`` (``groups`` under
        ``cognito:groups``)."""
        header = {"alg": "ES256", "kid": self.kid, "signer": signer_arn or self.signer_arn,
                  "iss": "https://idp.example", "client": "stereo-spot",
                  "exp": int(time.time() + expires_in_s)}
        body = {"sub": sub, "email": email or f"{sub}@example.com",
                "exp": header["exp"], "iss": header["iss"], **(claims or {})}
        if groups is not None:
            body["cognito:groups"] = groups
        signed = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(body).encode())}"
        r, s = decode_dss_signature(self._key.sign(signed.encode(), ec.ECDSA(hashes.SHA256())))
        return f"{signed}.{_b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"

    def headers(self, sub: str, **kwargs: Any) -> dict[str, str]:
        """The request headers the load balancer adds for ``sub``."""
        return {"x-amzn-oidc-data": self.token(sub, **kwargs), "x-amzn-oidc-identity": sub}
