"""Which program runs each service: its console script, else its module.

Light on purpose: ``local_stack.launch`` uses it before pydantic is imported.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from local_stack.errors import ServiceMissingError

# console script -> module whose main() it runs (the fallback when the script is missing)
_ENTRY_POINTS = {
    "web-ui": "web_ui.main",
    "media-worker": "media_worker.main",
    "video-worker": "video_worker.main",
}


def service_argv(script: str, *args: str) -> list[str]:
    """argv that runs a service's console script from this interpreter's environment.

    Raises ServiceMissingError when neither the script nor its module is installed.
    """
    found = shutil.which(script, path=str(Path(sys.executable).parent))
    if found:
        return [found, *args]
    module = _ENTRY_POINTS.get(script)
    if module is None:
        raise ServiceMissingError(f"unknown service {script!r}")
    try:
        __import__(module)
    except ImportError as exc:
        raise ServiceMissingError(
            f"the {script} service is not installed ({exc}); "
            "run `npx nx run stereo-spot:install-deps`"
        ) from exc
    code = f"import sys; sys.argv[0] = {script!r}; from {module} import main; sys.exit(main())"
    return [sys.executable, "-c", code, *args]
