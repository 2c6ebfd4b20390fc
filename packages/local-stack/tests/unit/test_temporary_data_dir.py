"""Where ``stereo-spot convert`` keeps a job's data without ``--data-dir``."""

from __future__ import annotations

import tempfile
from pathlib import Path

from local_stack import filesystems
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


def test_an_output_on_a_network_share_keeps_the_data_in_the_system_temp(
        tmp_path: Path, monkeypatch):
    share, local, system_temp = tmp_path / "nas", tmp_path / "disk", tmp_path / "system-temp"
    for folder in (share, local, system_temp):
        folder.mkdir()
    mounts = tmp_path / "mounts"
    mounts.write_text(f"/dev/vda / ext4 rw 0 0\nnas:/films {share} nfs4 rw 0 0\n")
    monkeypatch.setattr(filesystems, "MOUNTS", mounts)
    monkeypatch.setattr(tempfile, "tempdir", str(system_temp))
    with temporary_data_dir(share / "out.mp4") as folder:
        assert folder.parent == system_temp  # SQLite's locks are not trusted over NFS
    with temporary_data_dir(local / "out.mp4") as folder:
        assert folder.parent == local  # the control: a local disk keeps it beside


def test_the_filesystem_of_a_folder_is_its_longest_mount_point(tmp_path: Path):
    mounts = tmp_path / "mounts"
    mounts.write_text("/dev/vda / ext4 rw 0 0\n"
                      "srv:/x /mnt/my\\040films cifs rw 0 0\n"
                      "tmpfs /mnt/my\\040films/cache tmpfs rw 0 0\n"
                      "nas:/f /mnt/fürs\\040kino nfs4 rw 0 0\n")
    assert filesystems.filesystem_type(Path("/mnt/my films/a/b"), mounts) == "cifs"
    assert filesystems.filesystem_type(Path("/mnt/my films/cache/x"), mounts) == "tmpfs"
    assert filesystems.filesystem_type(Path("/home/me"), mounts) == "ext4"
    assert filesystems.filesystem_type(Path("/mnt/fürs kino/a"), mounts) == "nfs4"
    assert filesystems.on_network_share(Path("/mnt/my films"), mounts)
    assert not filesystems.on_network_share(Path("/mnt/my films/cache"), mounts)
    assert filesystems.filesystem_type(Path("/x"), tmp_path / "absent") is None
