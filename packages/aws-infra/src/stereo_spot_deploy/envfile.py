"""The env file between `terraform apply` and the deploy targets.

`nx run aws-infra:apply` turns the ``deploy_env`` Terraform output into
``KEY=value`` lines; every deploy command reads them back with
:func:`read_env_file`. The same file can be sourced by a shell.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from stereo_spot_deploy.errors import DeployError

_KEY_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_SAFE_VALUE_RE = re.compile(r"^[A-Za-z0-9_./:@%+,=-]*$")


def deploy_env_from_outputs(outputs_json: str) -> dict[str, str]:
    """The ``deploy_env`` map from ``terraform output -json``.

    Raises DeployError when the text is not Terraform's JSON or has no deploy_env.
    """
    try:
        outputs = json.loads(outputs_json)
        value = outputs["deploy_env"]["value"]
    except (ValueError, KeyError, TypeError) as exc:
        raise DeployError(
            "expected `terraform output -json` with a deploy_env output; "
            f"was aws-infra applied? ({exc!r})"
        ) from exc
    if not isinstance(value, dict):
        raise DeployError("deploy_env output is not a map")
    return {str(k): str(v) for k, v in value.items()}


def _quote(value: str) -> str:
    if _SAFE_VALUE_RE.match(value):
        return value
    return "'" + value.replace("'", "'\"'\"'") + "'"


def write_env_file(env: Mapping[str, str], path: Path) -> None:
    """Write ``env`` as sorted KEY=value lines (shell-quoted where needed).

    Raises DeployError for a key that is not an env var name or a value with a newline.
    """
    lines = ["# Written by `nx run aws-infra:apply` from terraform's deploy_env output."]
    for key in sorted(env):
        value = env[key]
        if not _KEY_RE.match(key):
            raise DeployError(f"not an environment variable name: {key!r}")
        if "\n" in value or "\r" in value:
            raise DeployError(f"value of {key} spans lines")
        lines.append(f"{key}={_quote(value)}")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)


def _unquote(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1].replace("'\"'\"'", "'")
    return raw


def read_env_file(path: Path) -> dict[str, str]:
    """The KEY=value pairs of an env file written by :func:`write_env_file`.

    Raises DeployError when the file is missing or a line is not KEY=value.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise DeployError(
            f"{path} does not exist: run `npx nx run aws-infra:apply` (or :output) first"
        ) from exc
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, raw = line.partition("=")
        if not sep or not _KEY_RE.match(key):
            raise DeployError(f"{path}:{number}: expected KEY=value, got {line!r}")
        env[key] = _unquote(raw)
    return env
