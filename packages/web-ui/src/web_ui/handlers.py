"""Exception handlers: errors become a readable HTML page, or JSON under /api/."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from shared_types.errors import (
    ConditionFailedError,
    DiskFullError,
    JobStateError,
    ModelUnavailableError,
    NotFoundError,
    TransientError,
)
from starlette.exceptions import HTTPException

from web_ui.errors import WebUiError
from web_ui.templating import render

log = logging.getLogger(__name__)

RETRY_AFTER_S = "5"


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def error_response(
    request: Request, status_code: int, message: str, *, details: list[str] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The error as JSON ``{"detail": ...}`` for the API, else the error page."""
    if _wants_json(request):
        return JSONResponse({"detail": message}, status_code=status_code, headers=headers)
    response = render(
        request.app.state.templates, request, "error.html",
        {"status_code": status_code, "message": message, "details": details or []},
        status_code=status_code,
    )
    response.headers.update(headers or {})
    return response


def _field_errors(exc: RequestValidationError) -> list[str]:
    out = []
    for err in exc.errors()[:10]:
        where = ".".join(str(p) for p in err.get("loc", ())[1:]) or "request"
        out.append(f"{where}: {err.get('msg', 'invalid value')}")
    return out


def install_handlers(app: FastAPI) -> None:
    """Register the handlers on ``app``."""

    @app.exception_handler(WebUiError)
    async def on_web_error(request: Request, exc: WebUiError) -> Response:
        return error_response(request, exc.status_code, exc.message)

    @app.exception_handler(JobStateError)
    async def on_job_state(request: Request, exc: JobStateError) -> Response:
        return error_response(request, 409, str(exc))

    @app.exception_handler(ModelUnavailableError)
    async def on_model_unavailable(request: Request, exc: ModelUnavailableError) -> Response:
        return error_response(request, 422, str(exc))

    @app.exception_handler(NotFoundError)
    async def on_not_found(request: Request, exc: NotFoundError) -> Response:
        return error_response(request, 404, "Not found. It may have been deleted.")

    @app.exception_handler(ConditionFailedError)
    async def on_conflict(request: Request, exc: ConditionFailedError) -> Response:
        return error_response(request, 409, "The job changed meanwhile; reload and try again.")

    @app.exception_handler(DiskFullError)
    async def on_disk_full(request: Request, exc: DiskFullError) -> Response:
        # the person can act on it (free space, a smaller file): say it, not "unavailable"
        log.warning("disk full on %s: %s", request.url.path, exc)
        return error_response(request, 507, str(exc))

    @app.exception_handler(TransientError)
    async def on_transient(request: Request, exc: TransientError) -> Response:
        log.warning("storage unavailable on %s: %s", request.url.path, exc)
        return error_response(
            request, 503, "Storage is unavailable right now; try again in a moment.",
            headers={"Retry-After": RETRY_AFTER_S},
        )

    @app.exception_handler(HTTPException)
    async def on_http(request: Request, exc: HTTPException) -> Response:
        message = "Page not found." if exc.status_code == 404 else str(exc.detail)
        return error_response(request, exc.status_code, message, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, exc: RequestValidationError) -> Response:
        if _wants_json(request):
            return await request_validation_exception_handler(request, exc)
        return error_response(
            request, 400, "Some fields are not valid.", details=_field_errors(exc)
        )
