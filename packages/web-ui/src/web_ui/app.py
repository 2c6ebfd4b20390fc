"""The one wiring function of the web UI: ``create_app(settings, backend)``."""

from __future__ import annotations

from functools import partial
from importlib.resources import files

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles
from shared_types.backend_loader import load_backend
from shared_types.ports import Backend
from starlette.middleware.trustedhost import TrustedHostMiddleware
from stereo_models.default_depth import GpuProbe, gpu_driver_present

from web_ui import webhook_pool, webhooks
from web_ui.alb_token import AlbKeySource
from web_ui.bootstrap import STORAGE_MOUNT, build_storage_app
from web_ui.dependencies import identify
from web_ui.depth_defaults import DepthDefaults
from web_ui.eta import EtaEstimator
from web_ui.handlers import install_handlers
from web_ui.identity import build_identity
from web_ui.model_choice import model_options
from web_ui.model_downloads import ModelDownloads
from web_ui.rate_limit import RateLimiter
from web_ui.routes import api, events, models, pages, preview, uploads
from web_ui.security import (
    BasicAuthMiddleware,
    BodyLimitMiddleware,
    SecurityHeadersMiddleware,
    trusted_hosts,
)
from web_ui.settings import WebSettings
from web_ui.templating import build_templates
from web_ui.uploads import upload_origins

AUTH_EXEMPT = ("/healthz", STORAGE_MOUNT + "/")


def create_app(settings: WebSettings, backend: Backend | None = None, *,
               alb_keys: AlbKeySource | None = None,
               has_gpu: GpuProbe | None = None) -> FastAPI:
    """The FastAPI app: pages, SSE, JSON API, static files and, on the local
    backend, the signed ``/storage`` routes. ``backend`` defaults to the one
    ``settings.backend`` names (tests pass a fake); ``alb_keys`` replaces the
    load balancer's published keys (tests sign identities with their own);
    ``has_gpu`` (whether the engine here has a GPU) to the driver's device
    nodes being there."""
    backend = backend if backend is not None else load_backend(settings)
    app = FastAPI(
        title="StereoSpot", summary="2D to 3D video conversion",
        docs_url=None, redoc_url=None, openapi_url="/openapi.json",
        dependencies=[Depends(identify)],  # every route knows its user, or refuses
    )
    app.state.settings = settings
    app.state.backend = backend
    app.state.identity = build_identity(settings, alb_keys)
    app.state.rate_limiter = RateLimiter(settings.client_requests_per_s,
                                         settings.client_request_burst)
    app.state.eta = EtaEstimator(backend, settings.eta_seconds_per_mb)
    app.state.templates = build_templates()
    app.state.depth_defaults = DepthDefaults(settings, has_gpu or gpu_driver_present)
    app.state.templates.env.globals["model_options"] = partial(
        model_options, settings, app.state.depth_defaults)

    app.state.model_downloads = ModelDownloads(settings.models_dir, settings.hub_endpoint)

    app.include_router(pages.router)
    app.include_router(models.router)
    app.include_router(events.router)
    app.include_router(api.router)
    app.include_router(uploads.router)
    app.include_router(uploads.depth_router)
    app.include_router(preview.router)
    app.mount("/static", StaticFiles(directory=str(files("web_ui") / "static")), name="static")
    storage = build_storage_app(settings, backend)
    if storage is not None:
        app.mount(STORAGE_MOUNT, storage, name="storage")
    install_handlers(app)
    if settings.webhook_secret is not None:
        config = webhooks.WebhookConfig(
            secret=settings.webhook_secret.get_secret_value().encode(),
            deployment=settings.deployment_name or settings.public_base_url,
            deadline_s=settings.webhook_timeout_s, policy=settings.webhook_policy)
        app.state.webhooks = webhook_pool.start_notifier(
            backend, config, poll_s=settings.webhook_poll_s, workers=settings.webhook_workers)

    # Last added runs first: headers wrap everything, auth before reading bodies.
    app.add_middleware(
        BodyLimitMiddleware, max_bytes=settings.max_body_bytes,
        exempt_prefixes=(STORAGE_MOUNT + "/",),
    )
    if settings.basic_auth is not None:
        user, password = settings.basic_auth
        app.add_middleware(
            BasicAuthMiddleware, user=user, password=password,
            exempt_prefixes=AUTH_EXEMPT,
        )
    app.add_middleware(SecurityHeadersMiddleware, form_origins=upload_origins(backend))
    hosts = trusted_hosts(settings.host, settings.public_base_url, settings.allowed_hosts)
    if hosts is not None:  # outermost: a foreign Host is refused before anything runs
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=hosts)
    return app
