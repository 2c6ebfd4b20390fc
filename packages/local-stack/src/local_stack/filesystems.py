"""What kind of filesystem a folder lies on (Linux's mount table), for choosing
where ``stereo-spot convert`` keeps a job's data: not on a network share,
where SQLite's file locks are unreliable and every queue poll crosses the
network."""

from __future__ import annotations

import re
from pathlib import Path

MOUNTS = Path("/proc/mounts")
_OCTAL = re.compile(r"\\([0-7]{3})")
NETWORK_FILESYSTEMS = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "afs", "9p", "ceph", "glusterfs", "lustre",
    "davfs", "fuse.sshfs", "fuse.rclone", "fuse.s3fs", "fuse.gcsfuse",
})


def filesystem_type(folder: Path, mounts: Path | None = None) -> str | None:
    """The type (``ext4``, ``tmpfs``, ``nfs4``, ...) of the filesystem ``folder``
    lies on, from the mount table at ``mounts`` (default MOUNTS); None where
    there is none to read (not Linux) or no mount holds it."""
    try:
        table = (mounts or MOUNTS).read_text()
    except OSError:
        return None
    target = Path(folder).resolve()
    best: tuple[int, str] | None = None
    for line in table.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = Path(_unescape(fields[1]))
        if (target == point or point in target.parents) and (
                best is None or len(point.parts) > best[0]):
            best = (len(point.parts), fields[2])
    return best[1] if best else None


def on_network_share(folder: Path, mounts: Path | None = None) -> bool:
    """True when ``folder`` lies on a network filesystem (NFS, SMB, sshfs, ...)."""
    return filesystem_type(folder, mounts) in NETWORK_FILESYSTEMS


def _unescape(field: str) -> str:
    """A mount table field with its octal escapes (``\\040`` for a space) undone;
    other characters, UTF-8 names included, are as the table has them."""
    return _OCTAL.sub(lambda match: chr(int(match.group(1), 8)), field)
