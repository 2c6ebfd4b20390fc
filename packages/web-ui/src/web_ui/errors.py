"""Errors the web UI raises; each carries the HTTP status it maps to.

The base subclasses shared_types' PermanentError: a bad request is never fixed
by retrying it.
"""

from __future__ import annotations

from shared_types import errors as domain
from shared_types.errors import PermanentError


class WebUiError(PermanentError):
    """Base of every web-ui error; ``status_code`` is the HTTP answer."""

    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequestError(WebUiError):
    """The request carries invalid input (a form field out of range, a bad id)."""

    status_code = 400


class CrossSiteRequestError(WebUiError):
    """A state-changing request came from another site or lacks a valid token."""

    status_code = 403


class PageNotFoundError(WebUiError):
    """No such job (or the id is not a UUID)."""

    status_code = 404


class JobStateError(WebUiError, domain.JobStateError):
    """The job is not in a state that allows the action (e.g. upload twice)."""

    status_code = 409


class TooLargeError(WebUiError):
    """An upload is over the size cap."""

    status_code = 413


class OutboundRefusedError(BadRequestError):
    """A URL the server was asked to call (a webhook) names a scheme or an
    address it may not reach: loopback, a private network, plain http."""

    status_code = 400


class SignInError(WebUiError):
    """The request carries no valid identity (the load balancer's signed header)."""

    status_code = 401


class NotAllowedError(WebUiError):
    """Too many requests from one client, or too many bytes in flight."""

    status_code = 429
