"""Running external commands (docker, git) with an argv list, never a shell."""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from stereo_spot_deploy.errors import CommandFailedError

log = logging.getLogger(__name__)

# (argv, stdin text, working directory) -> stdout; raises CommandFailedError.
Runner = Callable[[Sequence[str], str | None, Path | None], str]


def run_command(argv: Sequence[str], stdin: str | None = None, cwd: Path | None = None) -> str:
    """Run ``argv``, stream its stderr to ours, return its stdout.

    Raises CommandFailedError when it cannot start or exits non-zero.
    """
    log.info("running %s", " ".join(argv))
    try:
        done = subprocess.run(
            list(argv), input=stdin, cwd=cwd, text=True, stdout=subprocess.PIPE, check=False
        )
    except OSError as exc:
        raise CommandFailedError(f"cannot run {argv[0]}: {exc}") from exc
    if done.returncode != 0:
        raise CommandFailedError(f"{' '.join(argv[:3])} ... exited with {done.returncode}")
    return done.stdout


def release_tag(repo_root: Path, runner: Runner = run_command) -> str:
    """The image tag of this checkout: its short git SHA (one tag per release).

    Raises CommandFailedError outside a git checkout.
    """
    return runner(["git", "rev-parse", "--short=12", "HEAD"], None, repo_root).strip()


def source_commit(repo_root: Path, runner: Runner = run_command) -> str | None:
    """The full SHA of this checkout's HEAD, or None outside a git checkout
    (CodeBuild then builds the repository's default branch)."""
    try:
        return runner(["git", "rev-parse", "HEAD"], None, repo_root).strip() or None
    except CommandFailedError:
        log.warning("not a git checkout: CodeBuild will build the default branch")
        return None
