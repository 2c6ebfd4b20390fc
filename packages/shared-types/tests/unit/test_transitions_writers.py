"""Only the named transitions (``shared_types.transitions``) create a job, write
its status, or condition a write on it: an AST scan of every package's source.

A writer is a call ``<jobs>.update(...)`` or ``<jobs>.create(...)`` on a job
store (an expression ending in ``jobs``, ``_jobs`` or ``job_store``), any call
with ``expected_status=``, and any ``JobUpdate(status=...)``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGES = Path(__file__).resolve().parents[3]
JOB_STORES = {"jobs", "_jobs", "job_store"}

# Where a writer may stand, and why.
ALLOWED = {
    "shared-types/src/shared_types/transitions.py": "the named transitions",
    "shared-types/src/shared_types/testing/lifecycle_witness.py":
        "wraps a store to check its moves against the table",
    "shared-types/src/shared_types/testing/contracts/job_store.py":
        "the JobStore port's own contract suite",
    "shared-types/src/shared_types/testing/memory.py": "the in-memory JobStore",
    "video-worker/src/video_worker/testing.py": "a test factory seeding a job in any status",
}
ADAPTERS = ("local-adapters/src/", "aws-adapters/src/")  # they implement the port


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def writers(source: str) -> list[int]:
    """Line numbers of the writes of a job's status or creations in ``source``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        on_store = (isinstance(func, ast.Attribute) and func.attr in ("update", "create")
                    and _name(func.value) in JOB_STORES)
        conditioned = any(k.arg == "expected_status" for k in node.keywords)
        moves = _name(func) == "JobUpdate" and any(k.arg == "status" for k in node.keywords)
        if on_store or conditioned or moves:
            lines.append(node.lineno)
    return lines


def scanned(root: Path = PACKAGES) -> list[Path]:
    paths = sorted(root.glob("*/src/**/*.py"))
    return [p for p in paths if not str(p.relative_to(root)).startswith(ADAPTERS)]


def writers_outside_transitions(root: Path = PACKAGES) -> dict[str, list[int]]:
    """``{module: lines}`` of every writer outside ALLOWED under ``root``."""
    found = {}
    for path in scanned(root):
        where = str(path.relative_to(root))
        if where not in ALLOWED and (lines := writers(path.read_text())):
            found[where] = lines
    return found


def test_only_the_named_transitions_create_jobs_or_write_their_status():
    found = writers_outside_transitions()
    assert found == {}, f"job status written outside shared_types.transitions: {found}"


def test_the_scan_covers_every_worker_and_the_web_ui():
    where = {str(p.relative_to(PACKAGES)) for p in scanned()}
    for module in ("media-worker/src/media_worker/chunking.py",
                   "video-worker/src/video_worker/janitor.py",
                   "web-ui/src/web_ui/uploads.py",
                   "local-stack/src/local_stack/submission.py",
                   "shared-types/src/shared_types/retry.py"):
        assert module in where
    assert all(module in where for module in ALLOWED)  # no stale exception


def test_negative_control_each_kind_of_writer_is_caught():
    assert writers("backend.jobs.update(j, JobUpdate(status=JobStatus.FAILED))") == [1, 1]
    assert writers("deps.backend.jobs.create(job)") == [1]
    assert writers("self._jobs.update(j, JobUpdate(), expected_status=[s])") == [1]
    assert writers("store.update(j, changes, expected_status=HELD)") == [1]
    assert writers("x = JobUpdate(status=S.CREATED)") == [1]


def test_negative_control_reads_and_other_stores_are_not_writers():
    assert writers("backend.jobs.get(j)\nbackend.jobs.list_by_status(s)") == []
    assert writers("backend.completions.put(c)\nbackend.reassembly.complete(lease)") == []
    assert writers("record(backend.jobs, j, JobUpdate(title='x'), while_in=HELD)") == []


def test_negative_control_a_planted_writer_fails_the_scan(tmp_path):
    planted = tmp_path / "media-worker" / "src" / "media_worker" / "sneaky.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("def go(backend, j):\n"
                       "    backend.jobs.update(j, JobUpdate(status=JobStatus.COMPLETED))\n")
    allowed = tmp_path / "shared-types" / "src" / "shared_types" / "transitions.py"
    allowed.parent.mkdir(parents=True)
    allowed.write_text("def go(jobs, j):\n    jobs.create(j)\n")
    sneaky = "media-worker/src/media_worker/sneaky.py"
    assert writers_outside_transitions(tmp_path) == {sneaky: [2, 2]}
