"""FastAPI dependencies: the app's wired services, the user, the job they
asked for, and request guards."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Form, Request
from shared_types.models import Job
from shared_types.ports import Backend
from starlette.templating import Jinja2Templates

from web_ui import csrf
from web_ui import jobs as job_service
from web_ui.depth_defaults import DepthDefaults
from web_ui.eta import EtaEstimator
from web_ui.identity import User
from web_ui.settings import WebSettings

# Answered to anyone: the load balancer's health check carries no sign-in.
ANONYMOUS_PATHS = frozenset({"/healthz"})


def get_settings(request: Request) -> WebSettings:
    return request.app.state.settings


def get_backend(request: Request) -> Backend:
    return request.app.state.backend


def get_eta(request: Request) -> EtaEstimator:
    return request.app.state.eta


def get_templates(request: Request) -> Jinja2Templates:
    return request.app.state.templates


def identify(request: Request) -> None:
    """Guard of every route: the request proves its user (kept in
    ``request.state.user``). Raises SignInError."""
    if request.url.path not in ANONYMOUS_PATHS:
        request.state.user = request.app.state.identity.user_for(request.headers)


def get_user(request: Request) -> User:
    return request.state.user


def get_depth_defaults(request: Request) -> DepthDefaults:
    return request.app.state.depth_defaults


SettingsDep = Annotated[WebSettings, Depends(get_settings)]
BackendDep = Annotated[Backend, Depends(get_backend)]
EtaDep = Annotated[EtaEstimator, Depends(get_eta)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]
UserDep = Annotated[User, Depends(get_user)]
DepthDefaultsDep = Annotated[DepthDefaults, Depends(get_depth_defaults)]


def owned_job(job_id: str, backend: BackendDep, user: UserDep) -> Job:
    """The job the path names, when this user may see it. Raises
    PageNotFoundError otherwise (another user's job does not exist for them)."""
    return job_service.load_job(backend, job_id, user)


JobDep = Annotated[Job, Depends(owned_job)]


def rate_limited(request: Request, user: UserDep) -> None:
    """Guard: the client (user and address) is within its request rate.
    Raises NotAllowedError."""
    address = request.client.host if request.client else "-"
    request.app.state.rate_limiter.take(f"{user.id}@{address}")


def public_hosts(settings: WebSettings) -> frozenset[str]:
    """Hosts besides the request's own Host header that may post to us."""
    netloc = urlsplit(settings.public_base_url).netloc
    return frozenset({netloc} if netloc else ())


def same_origin(request: Request, settings: SettingsDep) -> None:
    """Guard: the request comes from this site (Sec-Fetch-Site / Origin)."""
    csrf.check_same_origin(request, public_hosts(settings))


def form_token(
    request: Request,
    csrf_token: Annotated[str | None, Form(max_length=csrf.MAX_TOKEN_LENGTH)] = None,
) -> None:
    """Guard: the form carries this browser's CSRF token."""
    csrf.check_form_token(request, csrf_token)


def json_body(request: Request) -> None:
    """Guard: the API request body is declared as JSON."""
    csrf.check_json_request(request)


SAFE_FORM = [Depends(same_origin), Depends(form_token)]
SAFE_API = [Depends(same_origin), Depends(json_body)]
# state-changing requests that open jobs or uploads: also rate-limited per client
LIMITED_FORM = [*SAFE_FORM, Depends(rate_limited)]
LIMITED_API = [*SAFE_API, Depends(rate_limited)]
