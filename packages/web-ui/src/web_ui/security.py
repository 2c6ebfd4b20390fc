"""ASGI middleware: security headers, a request body cap, optional basic auth,
and the host names a loopback-only UI answers (DNS rebinding)."""

from __future__ import annotations

import base64
import binascii
import hmac
import ipaddress
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def security_headers(form_origins: tuple[str, ...] = ()) -> tuple[tuple[bytes, bytes], ...]:
    """The headers every response carries; forms may post to this site and to
    ``form_origins`` (the storage that takes upload forms)."""
    form_action = " ".join(("'self'", *form_origins))
    return (
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"same-origin"),
        (
            b"content-security-policy",
            b"default-src 'self'; script-src 'self'; style-src 'self'; "
            b"img-src 'self' data: https: http:; "
            b"media-src 'self' https: http:; connect-src 'self' https: http:; "
            b"frame-ancestors 'none'; form-action " + form_action.encode() + b"; base-uri 'none'",
        ),
    )



LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]", "::1")


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def trusted_hosts(bind_host: str, public_base_url: str, extra: list[str]) -> list[str] | None:
    """Host header values the UI accepts, or None for any.

    A UI bound to loopback (``stereo-spot serve``) answers only loopback names,
    its public URL's host and ``extra``: a page on another site whose DNS name
    was re-bound to 127.0.0.1 sends its own name and is refused. A UI bound to
    a public interface (behind a load balancer) is protected by the balancer's
    own authentication and HTTPS, and answers any Host unless ``extra`` lists some.
    """
    if not _is_loopback(bind_host):
        return list(extra) or None
    public = urlsplit(public_base_url).hostname
    return sorted({*LOOPBACK_NAMES, *([public] if public else []), *extra})


class SecurityHeadersMiddleware:
    """Adds nosniff, frame denial, a referrer policy and a CSP to every response
    (forms may also post to ``form_origins``)."""

    def __init__(self, app: ASGIApp, *, form_origins: tuple[str, ...] = ()) -> None:
        self.app = app
        self.headers = security_headers(form_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in self.headers if k not in present]
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)


def passes_through(scope: Scope, exempt_prefixes: tuple[str, ...]) -> bool:
    """True for what a guarding middleware leaves alone: anything but HTTP, and
    paths under ``exempt_prefixes``."""
    return scope["type"] != "http" or scope["path"].startswith(exempt_prefixes)


class _BodyTooLarge(Exception):
    pass


class BodyLimitMiddleware:
    """Answers 413 to a request body over ``max_bytes`` (declared or streamed).
    Paths under ``exempt_prefixes`` (the signed storage routes, which enforce
    their own upload cap) pass through."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, exempt_prefixes: tuple[str, ...] = ()):
        self.app = app
        self.max_bytes = max_bytes
        self.exempt_prefixes = exempt_prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if passes_through(scope, self.exempt_prefixes):
            await self.app(scope, receive, send)
            return
        too_large = PlainTextResponse("Request body too large.", status_code=413)
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await too_large(scope, receive, send)
            return
        seen = 0
        started = refused = False

        async def counted_receive() -> Message:
            nonlocal seen, refused
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes and not refused:
                    # Answer now: frameworks turn errors raised while reading into 400s.
                    if not started:
                        refused = True
                        await too_large(scope, receive, send)
                    raise _BodyTooLarge
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 has been sent; drop the app's own answer
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except _BodyTooLarge:
            if not refused:
                raise


def credentials_match(header: str | None, user: str, password: str) -> bool:
    """True when an ``Authorization: Basic`` header carries exactly these
    credentials (compared in constant time)."""
    if not header or not header.lower().startswith("basic "):
        return False
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    given_user, sep, given_password = decoded.partition(":")
    ok_user = hmac.compare_digest(given_user.encode(), user.encode())
    ok_password = hmac.compare_digest(given_password.encode(), password.encode())
    return bool(sep) and ok_user and ok_password


class BasicAuthMiddleware:
    """HTTP basic auth for a personal deployment. ``exempt_prefixes`` (health
    checks, self-authenticating presigned storage URLs) pass through."""

    def __init__(self, app: ASGIApp, *, user: str, password: str,
                 exempt_prefixes: tuple[str, ...] = ()) -> None:
        self.app = app
        self.user = user
        self.password = password
        self.exempt_prefixes = exempt_prefixes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if passes_through(scope, self.exempt_prefixes):
            await self.app(scope, receive, send)
            return
        header = Headers(scope=scope).get("authorization")
        if credentials_match(header, self.user, self.password):
            await self.app(scope, receive, send)
            return
        denied = PlainTextResponse(
            "Authentication required.", status_code=401,
            headers={"WWW-Authenticate": 'Basic realm="StereoSpot", charset="UTF-8"'},
        )
        await denied(scope, receive, send)
