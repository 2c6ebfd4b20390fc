"""Run Nx targets exactly as ``project.json`` spells them, and read the order
an operator runs them in from ``docs/RUNBOOKS.md``.

Tests use this instead of re-typing a target's command line: what runs is the
``nx:run-commands`` command of the real project.json, in the target's ``cwd``
(``{projectRoot}`` or ``{workspaceRoot}`` of a given checkout), after the
targets it ``dependsOn`` in the same project, through ``/bin/sh`` as Nx runs it.
Cross-project dependencies (``stereo-spot:install-deps``) are taken as done:
the test runs from an installed ``.venv``.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

_NX_RUN = re.compile(r"^\s*npx nx run ([\w-]+):([\w-]+)")


@dataclass(frozen=True)
class Target:
    """One ``nx:run-commands`` target of a project."""

    project: str
    name: str
    command: str
    cwd: str  # relative to the workspace root
    depends_on: tuple[str, ...]  # targets of the same project


def load_target(repo_root: Path, project: str, name: str) -> Target:
    """Target ``project:name`` from ``packages/<project>/project.json`` under ``repo_root``."""
    spec = json.loads((repo_root / "packages" / project / "project.json").read_text())
    target = spec["targets"][name]
    options = target["options"]
    cwd = options.get("cwd", "{workspaceRoot}")
    cwd = cwd.replace("{projectRoot}", f"packages/{project}").replace("{workspaceRoot}", ".")
    same_project = tuple(d for d in target.get("dependsOn", []) if ":" not in d)
    return Target(project, name, options["command"], cwd, same_project)


def runbook_targets(runbook: Path, heading: str) -> list[str]:
    """``project:target`` of every ``npx nx run`` line in the section ``heading``, in order."""
    text = runbook.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    end = text.find("\n##", start + len(heading) + 2)  # the next heading
    section = text[start:end if end > 0 else None]
    return [f"{m.group(1)}:{m.group(2)}" for line in section.splitlines()
            if (m := _NX_RUN.match(line))]


def run_target(
    checkout: Path, source: Path, ref: str, env: Mapping[str, str], *,
    stdin: str = "", timeout_s: float = 600, _done: set[str] | None = None,
) -> subprocess.CompletedProcess:
    """Run ``project:target`` as Nx would, in ``checkout``, with the command from
    ``source``'s project.json; its dependsOn targets first. Returns the target's
    own finished process (a failed dependency is returned instead)."""
    project, name = ref.split(":")
    target = load_target(source, project, name)
    done = set() if _done is None else _done
    for dependency in target.depends_on:
        if f"{project}:{dependency}" in done:
            continue
        before = run_target(checkout, source, f"{project}:{dependency}", env, stdin=stdin,
                            timeout_s=timeout_s, _done=done)
        if before.returncode != 0:
            return before
    done.add(ref)
    return subprocess.run(
        ["/bin/sh", "-c", target.command], cwd=checkout / target.cwd, env=dict(env),
        input=stdin, capture_output=True, text=True, timeout=timeout_s, check=False,
    )
