"""jobs / retry / dlq from the command line on the real local backend."""

from pathlib import Path

import pytest
from shared_types.models import Job, OutputMode
from shared_types.settings import BackendSettings

from local_stack import cli

local_adapters = pytest.importorskip("local_adapters")


def test_jobs_dlq_and_retry_commands(tmp_path: Path, capsys, monkeypatch):
    for key in ("STEREO_SPOT_BACKEND", "STEREO_SPOT_DATA_DIR"):
        monkeypatch.delenv(key, raising=False)
    backend = local_adapters.build_backend(BackendSettings(data_dir=tmp_path))
    backend.jobs.create(Job(job_id="job-1", mode=OutputMode.TB, title="holiday"))
    backend.reassembly_queue.send("garbage")
    [msg] = backend.reassembly_queue.receive()
    backend.reassembly_queue.dead_letter(msg, "not a reassembly message")

    assert cli.main(["jobs", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "job-1" in out
    assert "holiday" in out

    assert cli.main(["dlq", "--data-dir", str(tmp_path)]) == 0
    listed = capsys.readouterr().out
    assert "garbage" in listed
    assert "not a reassembly message" in listed  # why it is there, not only what
    assert cli.main(["dlq", "--redrive", "--data-dir", str(tmp_path)]) == 0
    assert "reassembly: 1" in capsys.readouterr().out
    assert backend.reassembly_queue.dead_letters() == []

    assert cli.main(["retry", "job-1", "--data-dir", str(tmp_path)]) == 1
    assert "cannot retry job job-1" in capsys.readouterr().err
