"""Who is asking: the user of a request, and which jobs they may see.

Behind an AWS load balancer that signs people in (``identity = "alb"``), the
user is the one its signed ``x-amzn-oidc-data`` header names
(:mod:`web_ui.alb_token`); a request without a valid one is refused. On a
machine of one's own (``identity = "local"``, ``stereo-spot serve``) there is
one user, :data:`LOCAL_USER`, who needs no sign-in and sees every job.

Each job belongs to the user who created it (``Job.owner``); only they and
admins (members of the group the admin claim names) see or act on it. To
anyone else it does not exist: 404, as for a job that never was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from shared_types.models import Job

from web_ui.alb_token import HEADER, AlbKeySource, HttpAlbKeys, verify_alb_token
from web_ui.errors import SignInError
from web_ui.settings import WebSettings


@dataclass(frozen=True)
class User:
    id: str
    name: str
    is_admin: bool = False

    def may_see(self, job: Job) -> bool:
        """True for the job's owner and admins (a job from before users existed
        has no owner: admins only)."""
        return self.is_admin or (job.owner is not None and job.owner == self.id)


LOCAL_USER = User(id="local", name="local", is_admin=True)


class Identity(Protocol):
    def user_for(self, headers: Mapping[str, str]) -> User:
        """The user a request's headers prove. Raises SignInError."""


class LocalIdentity:
    """One user, no sign-in (a UI on one's own machine)."""

    def user_for(self, headers: Mapping[str, str]) -> User:
        return LOCAL_USER


def is_in_group(claims: Mapping[str, Any], claim: str, group: str) -> bool:
    """Whether the claim (a list, or a comma- or space-separated string, as
    identity providers send groups) names ``group``."""
    value = claims.get(claim)
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    return isinstance(value, list) and group in value


class AlbIdentity:
    """The user the load balancer signed in (see :mod:`web_ui.alb_token`)."""

    def __init__(self, keys: AlbKeySource, *, signer_arn: str, admin_claim: str,
                 admin_group: str, clock: Callable[[], float] = time.time) -> None:
        self.keys = keys
        self.signer_arn = signer_arn
        self.admin_claim = admin_claim
        self.admin_group = admin_group
        self.clock = clock

    def user_for(self, headers: Mapping[str, str]) -> User:
        token = headers.get(HEADER)
        if not token:
            raise SignInError("Sign-in required: this page is reached through the sign-in "
                              "of the load balancer.")
        claims = verify_alb_token(token, self.keys, signer_arn=self.signer_arn,
                                  now=self.clock())
        name = claims.get("email") or claims.get("username") or claims["sub"]
        return User(id=claims["sub"], name=str(name)[:200],
                    is_admin=is_in_group(claims, self.admin_claim, self.admin_group))


def build_identity(settings: WebSettings, keys: AlbKeySource | None = None) -> Identity:
    """The identity the settings name; ``keys`` replaces AWS's published keys
    (tests sign with a key of their own)."""
    if settings.identity == "local":
        return LocalIdentity()
    # WebSettings refuses identity "alb" without both (_alb_identity_is_complete)
    assert settings.alb_region is not None and settings.alb_arn is not None
    keys = keys if keys is not None else HttpAlbKeys(settings.alb_region,
                                                     url_template=settings.alb_keys_url)
    return AlbIdentity(keys, signer_arn=settings.alb_arn, admin_claim=settings.admin_claim,
                       admin_group=settings.admin_group)
