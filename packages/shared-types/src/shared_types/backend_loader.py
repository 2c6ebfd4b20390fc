"""The one place that turns ``settings.backend`` into a Backend.

Every service's wiring (``bootstrap.py``) calls :func:`load_backend`; nothing
else branches on the backend's name. The adapter packages are imported lazily,
so a deployment installs only the one it uses.
"""

from __future__ import annotations

import importlib

from shared_types.errors import AdapterMissingError
from shared_types.ports import Backend
from shared_types.settings import BackendSettings

ADAPTER_PACKAGES = {"local": "local_adapters", "aws": "aws_adapters"}


def load_backend(settings: BackendSettings) -> Backend:
    """The Backend named by ``settings.backend``, built by its adapter package's
    ``build_backend(settings)``.

    Raises AdapterMissingError when that package is not installed; store errors
    (TransientStoreError / PermanentStoreError) propagate.
    """
    name = ADAPTER_PACKAGES[settings.backend]
    try:
        build = importlib.import_module(name).build_backend
    except (ImportError, AttributeError) as exc:
        raise AdapterMissingError(
            f"the {settings.backend} backend needs the {name} package, which is not "
            f"installed ({exc})") from exc
    return build(settings)


def receive_wait_s(settings: BackendSettings) -> float:
    """How long a worker's receive waits for a message: the same long poll on
    every backend. A waiting local receive sleeps until its queue's doorbell
    rings (or a delayed message comes due) and ends as soon as its consumer
    drains (``Queue.receive``'s ``stop``), so a long wait costs it nothing;
    short waits made every idle consumer lease-poll SQLite ten times a second."""
    return settings.sqs_wait_s
