"""Cross-site request protection for state-changing requests.

Two independent checks: the browser's own provenance headers (``Sec-Fetch-Site``
and ``Origin`` must say same origin) and, for HTML forms, a double-submit token
(a random HttpOnly SameSite=Strict cookie echoed in a hidden field). JSON API
calls must be ``application/json``, which no cross-site form can send.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from web_ui.errors import CrossSiteRequestError

COOKIE_NAME = "stereo_spot_csrf"
FIELD_NAME = "csrf_token"
MAX_TOKEN_LENGTH = 128


def check_same_origin(request: Request, extra_hosts: frozenset[str] = frozenset()) -> None:
    """Raises CrossSiteRequestError when the browser says the request is cross-site
    or its Origin is not this server (by Host header) or one of ``extra_hosts``."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        raise CrossSiteRequestError("Cross-site requests are not allowed.")
    origin = request.headers.get("origin")
    if origin is None:
        return
    netloc = urlsplit(origin).netloc if origin != "null" else ""
    allowed = {request.headers.get("host", "")} | extra_hosts
    if not netloc or netloc not in allowed:
        raise CrossSiteRequestError("Request origin is not this site.")


def token_for(request: Request) -> str:
    """The CSRF token of this browser (its cookie), or a new one to set."""
    current = request.cookies.get(COOKIE_NAME, "")
    if 16 <= len(current) <= MAX_TOKEN_LENGTH:
        return current
    return secrets.token_urlsafe(32)


def set_token_cookie(request: Request, response: Response, token: str) -> None:
    """Store ``token`` in the browser (only when it is not there yet)."""
    if request.cookies.get(COOKIE_NAME) != token:
        response.set_cookie(
            COOKIE_NAME, token, httponly=True, samesite="strict", path="/",
            secure=request.url.scheme == "https",
        )


def check_form_token(request: Request, submitted: str | None) -> None:
    """Raises CrossSiteRequestError unless ``submitted`` equals the cookie token."""
    cookie = request.cookies.get(COOKIE_NAME)
    if not cookie or not submitted or len(submitted) > MAX_TOKEN_LENGTH:
        raise CrossSiteRequestError("The form expired; reload the page and try again.")
    if not hmac.compare_digest(cookie.encode(), submitted.encode()):
        raise CrossSiteRequestError("The form expired; reload the page and try again.")


def check_json_request(request: Request) -> None:
    """Raises CrossSiteRequestError unless the body is declared as JSON."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise CrossSiteRequestError("API requests must be application/json.")
