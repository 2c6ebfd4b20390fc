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
# An embedded queue is polled, not pushed to: a short wait lets a local worker
# notice a stop (drain) within a tenth of a second (the CLI waits for that drain
# after every conversion, issue 17); a waiting receive still picks a message up
# within ~20 ms and polls the same way however long it waits, so the shorter wait
# costs nothing. SQS long polling is free, so AWS keeps the full wait.
LOCAL_MAX_WAIT_S = 0.1


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
    """How long a worker's receive waits for a message on this backend."""
    if settings.backend == "aws":
        return settings.sqs_wait_s
    return min(settings.sqs_wait_s, LOCAL_MAX_WAIT_S)
