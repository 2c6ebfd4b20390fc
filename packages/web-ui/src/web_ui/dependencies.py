"""FastAPI dependencies: the app's wired services, and request guards."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Form, Request
from shared_types.ports import Backend
from starlette.templating import Jinja2Templates

from web_ui import csrf
from web_ui.depth_defaults import DepthDefaults
from web_ui.eta import EtaEstimator
from web_ui.settings import WebSettings


def get_settings(request: Request) -> WebSettings:
    return request.app.state.settings


def get_backend(request: Request) -> Backend:
    return request.app.state.backend


def get_eta(request: Request) -> EtaEstimator:
    return request.app.state.eta


def get_templates(request: Request) -> Jinja2Templates:
    return request.app.state.templates


def get_depth_defaults(request: Request) -> DepthDefaults:
    return request.app.state.depth_defaults


SettingsDep = Annotated[WebSettings, Depends(get_settings)]
BackendDep = Annotated[Backend, Depends(get_backend)]
EtaDep = Annotated[EtaEstimator, Depends(get_eta)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]
DepthDefaultsDep = Annotated[DepthDefaults, Depends(get_depth_defaults)]


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
