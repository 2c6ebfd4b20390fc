"""The web UI's wiring: the Backend (``shared_types.backend_loader``) and, on
the local backend, local-adapters' signed ``/storage`` routes (on AWS, S3
serves browsers itself). Adapter packages are imported lazily so a deployment
needs only the one it uses.
"""

from __future__ import annotations

from shared_types.ports import Backend
from starlette.types import ASGIApp

from web_ui.settings import WebSettings

STORAGE_MOUNT = "/storage"


def build_storage_app(settings: WebSettings, backend: Backend) -> ASGIApp | None:
    """The signed upload/download routes to mount at ``/storage`` (sharing
    ``backend``'s folder storages), or None when the backend's storage serves
    browsers itself (S3) or serving is turned off. Raises TypeError when the
    backend is local but its storages are not folder storages."""
    if settings.backend != "local" or not settings.serve_storage:
        return None
    from local_adapters.storage_app import storage_app

    return storage_app(settings, backend=backend)
