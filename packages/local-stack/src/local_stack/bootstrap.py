"""The only module that knows which backend is real (adapters imported lazily)."""

from __future__ import annotations

from shared_types.ports import Backend
from shared_types.settings import BackendSettings

from local_stack.errors import ServiceMissingError


def build_backend(settings: BackendSettings) -> Backend:
    """The Backend named by ``settings.backend``.

    Raises ServiceMissingError when its adapter package is not installed; store
    errors (TransientStoreError / PermanentStoreError) propagate.
    """
    name = "aws_adapters" if settings.backend == "aws" else "local_adapters"
    try:
        adapters = __import__(name)
        build = adapters.build_backend
    except (ImportError, AttributeError) as exc:
        raise ServiceMissingError(f"the {name} package is not installed ({exc})") from exc
    return build(settings)
