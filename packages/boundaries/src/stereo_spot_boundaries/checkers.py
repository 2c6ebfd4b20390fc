"""How the two boundary checks run: the same commands the Nx targets run.

``lint-imports`` reads the layer contracts in the repository's ``.importlinter``;
``mypy`` reads ``mypy.ini`` (its strictness is stated there). Both run from the
repository root with the ``.venv`` interpreter, so the negative-control tests
check exactly what CI checks.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[4]
IMPORT_CONTRACTS = REPO_ROOT / ".importlinter"
MYPY_CONFIG = REPO_ROOT / "mypy.ini"
# terminal colours and cursor moves (Nx forces colour on; the words are what count)
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def lint_imports(config: Path = IMPORT_CONTRACTS, *, first_on_path: Path | None = None,
                 timeout_s: float = 300) -> subprocess.CompletedProcess[str]:
    """Run import-linter on ``config``. ``first_on_path`` goes first on the
    module search path, so a test can put a package there that shadows one of
    ours. Its output comes back without terminal escapes. Raises
    subprocess.TimeoutExpired past ``timeout_s``."""
    env = {k: v for k, v in os.environ.items() if k != "FORCE_COLOR"} | {"NO_COLOR": "1"}
    if first_on_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(first_on_path), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), str(config), "--no-cache",
         "--no-logo"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout_s, check=False)
    return subprocess.CompletedProcess(done.args, done.returncode,
                                       _ESCAPES.sub("", done.stdout), _ESCAPES.sub("", done.stderr))


def type_check(paths: Sequence[Path] = (), *, config: Path = MYPY_CONFIG,
               cache_dir: Path | None = None,
               timeout_s: float = 900) -> subprocess.CompletedProcess[str]:
    """Run mypy with ``config``: on ``paths`` where given, else on the files the
    config names (every ``packages/*/src``). Raises subprocess.TimeoutExpired
    past ``timeout_s``."""
    command = [sys.executable, "-m", "mypy", "--config-file", str(config)]
    if cache_dir is not None:
        command += ["--cache-dir", str(cache_dir)]
    return subprocess.run([*command, *map(str, paths)], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=timeout_s, check=False)
