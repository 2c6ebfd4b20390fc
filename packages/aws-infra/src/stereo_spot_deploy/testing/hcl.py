"""Read a Terraform directory with python-hcl2 into plain dicts for structural tests.

python-hcl2 keeps HCL string quotes (``'"input"'``) and adds bookkeeping keys;
:func:`load_dir` strips both, so a test reads ``routes["chunking"]["prefix"] == "input/"``.
Expressions stay as ``${...}`` strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_BOOKKEEPING = {"__is_block__", "__comments__", "__inline_comments__", "__start_line__",
                "__end_line__"}


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def clean(node: Any) -> Any:
    """``node`` without HCL quotes around strings and keys or hcl2 bookkeeping."""
    if isinstance(node, dict):
        return {_unquote(k): clean(v) for k, v in node.items() if k not in _BOOKKEEPING}
    if isinstance(node, list):
        return [clean(v) for v in node]
    if isinstance(node, str):
        return _unquote(node)
    return node


@dataclass
class TerraformDir:
    """The blocks of every ``*.tf`` file of one directory, merged."""

    path: Path
    resources: dict[str, dict[str, dict]] = field(default_factory=dict)
    data: dict[str, dict[str, dict]] = field(default_factory=dict)
    variables: dict[str, dict] = field(default_factory=dict)
    outputs: dict[str, dict] = field(default_factory=dict)
    locals: dict[str, Any] = field(default_factory=dict)
    modules: dict[str, dict] = field(default_factory=dict)
    terraform: list[dict] = field(default_factory=list)
    providers: list[dict] = field(default_factory=list)
    text: str = ""

    def resource(self, rtype: str, name: str) -> dict:
        """One resource's body. Raises KeyError naming what is missing."""
        try:
            return self.resources[rtype][name]
        except KeyError:
            raise KeyError(f"{self.path.name}: no resource {rtype}.{name}") from None

    def default(self, variable: str) -> Any:
        """A variable's default value."""
        return self.variables[variable]["default"]


def _merge_named(target: dict, blocks: list[dict], depth: int) -> None:
    for block in blocks:
        for key, value in block.items():
            if depth == 2:
                for name, body in value.items():
                    target.setdefault(key, {})[name] = body
            else:
                target[key] = value


def load_dir(path: Path) -> TerraformDir:
    """Parse every ``*.tf`` file directly in ``path``."""
    import hcl2

    tf = TerraformDir(path)
    for file in sorted(path.glob("*.tf")):
        text = file.read_text(encoding="utf-8")
        tf.text += text
        doc = clean(hcl2.loads(text))
        _merge_named(tf.resources, doc.get("resource", []), 2)
        _merge_named(tf.data, doc.get("data", []), 2)
        _merge_named(tf.variables, doc.get("variable", []), 1)
        _merge_named(tf.outputs, doc.get("output", []), 1)
        _merge_named(tf.modules, doc.get("module", []), 1)
        for block in doc.get("locals", []):
            tf.locals.update(block)
        tf.terraform.extend(doc.get("terraform", []))
        tf.providers.extend(doc.get("provider", []))
    return tf
