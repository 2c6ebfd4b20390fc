"""Least privilege both ways: evaluate recorded IAM requests against a role's
policy with @cloud-copilot/iam-simulate (Node, ``tools/iam_evaluate.mjs``).

:func:`evaluate` answers, per role, which requests were denied and which
statements (by Sid) no request used. :func:`without_statement` builds the
policies of the negative control.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stereo_spot_deploy.testing.iam_requests import IamRequest

TOOLS = Path(__file__).resolve().parents[3] / "tools"
SCRIPT = TOOLS / "iam_evaluate.mjs"
REPO_ROOT = Path(__file__).resolve().parents[5]
SIMULATOR = REPO_ROOT / "node_modules" / "@cloud-copilot" / "iam-simulate"


class EvaluatorMissingError(RuntimeError):
    """node or @cloud-copilot/iam-simulate is not installed (run `npm ci`)."""


@dataclass
class RoleVerdict:
    """What the recorded requests of one role say about its policy."""

    role: str
    requests: list[IamRequest]
    statement_ids: list[str]
    denied: list[tuple[IamRequest, str]] = field(default_factory=list)
    used: dict[str, int] = field(default_factory=dict)

    @property
    def unused(self) -> list[str]:
        return [sid for sid in self.statement_ids if not self.used.get(sid)]

    def summary(self) -> str:
        return (f"{len(self.requests)} distinct request(s) evaluated, "
                f"{len(self.denied)} denied, {len(self.unused)} unused statement(s)"
                + (f" {self.unused}" if self.unused else ""))


def statement_ids(policy: dict[str, Any]) -> list[str]:
    """The Sid of every statement (every statement must have one)."""
    sids = [s.get("Sid") for s in policy["Statement"]]
    if not all(sids):
        raise ValueError(f"every statement needs a Sid: {policy['Statement']}")
    return sids


def without_statement(policy: dict[str, Any], sid: str) -> dict[str, Any]:
    """``policy`` with the statement ``sid`` removed."""
    return {**policy, "Statement": [s for s in policy["Statement"] if s.get("Sid") != sid]}


def _run_node(payload: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    node = shutil.which("node")
    if node is None or not SIMULATOR.is_dir():
        raise EvaluatorMissingError(
            f"the IAM evaluator needs node and {SIMULATOR} (run `npm ci` at the repo root)")
    done = subprocess.run([node, str(SCRIPT)], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=600, check=False, cwd=REPO_ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"iam_evaluate.mjs failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout)


def evaluate(roles: dict[str, tuple[dict[str, Any], list[IamRequest]]], *, account: str
             ) -> dict[str, RoleVerdict]:
    """Evaluate each role's distinct requests against its policy (one node run).
    ``roles`` maps a job id to (policy, requests)."""
    jobs, verdicts = [], {}
    for role, (policy, requests) in roles.items():
        distinct = list(dict.fromkeys(requests))
        verdicts[role] = RoleVerdict(role, distinct, statement_ids(policy))
        jobs.append({"id": role, "principal": f"arn:aws:sts::{account}:assumed-role/{role}/harness",
                     "policy": policy, "requests": [r.as_json() for r in distinct]})
    results = _run_node({"account": account, "jobs": jobs})
    for role, verdict in verdicts.items():
        for request, result in zip(verdict.requests, results[role], strict=True):
            if result["decision"] != "Allowed":
                detail = result["decision"]
                if result.get("errors"):
                    detail += f" {json.dumps(result['errors'])[:300]}"
                verdict.denied.append((request, detail))
            for sid in result["allowedBy"]:
                verdict.used[sid] = verdict.used.get(sid, 0) + 1
    return verdicts
