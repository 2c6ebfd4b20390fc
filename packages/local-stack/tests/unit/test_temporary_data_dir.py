"""Where ``stereo-spot convert`` keeps a job's data without ``--data-dir``."""

from __future__ import annotations

import tempfile
from pathlib import Path

from local_stack.convert import temporary_data_dir


def test_the_data_folder_is_a_hidden_folder_beside_the_output_and_is_removed(tmp_path: Path):
    out = tmp_path / "films" / "out.mp4"
    out.parent.mkdir()
    with temporary_data_dir(out) as folder:
        assert folder.parent == out.parent
        assert folder.name.startswith(".stereo-spot-")
        (folder / "segment.mp4").write_bytes(b"x" * 10)
    assert not folder.exists()
    assert list(out.parent.iterdir()) == []


def test_an_output_folder_that_takes_no_new_folder_falls_back_to_the_system_temp(
        tmp_path: Path, monkeypatch):
    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_temp))
    with temporary_data_dir(tmp_path / "missing" / "out.mp4") as folder:
        assert folder.parent == system_temp
    assert not folder.exists()
    # negative control: an output folder that exists is used, not the system temp
    with temporary_data_dir(tmp_path / "out.mp4") as folder:
        assert folder.parent == tmp_path
