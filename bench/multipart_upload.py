"""A multi-GB source uploaded in parts to the local backend, as the browser does it.

Starts the real ``web-ui`` console script (local backend, its signed
``/storage`` routes) in its own process, makes a sparse file of ``--gib`` GiB,
and uploads it with the resumable upload API: start, part URLs in batches,
one streaming PUT per part (never more than 1 MiB of the file in this client's
memory either), complete. Reports upload throughput and web-ui's peak RSS
(``VmHWM``) against its RSS before the upload (the reference, same run), and
checks the stored object's size.

    .venv/bin/python bench/multipart_upload.py --gib 3
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024


class PartReader:
    """A file-like view of one part, read 1 MiB at a time (requests sends it
    with a Content-Length taken from ``len``)."""

    def __init__(self, path: Path, start: int, length: int) -> None:
        self.fh = open(path, "rb")  # noqa: SIM115 (closed by close(), the reader outlives a with)
        self.fh.seek(start)
        self.left = length
        self.length = length

    def __len__(self) -> int:
        return self.length

    def read(self, n: int = -1) -> bytes:
        n = self.left if n is None or n < 0 else min(n, self.left, MIB)
        data = self.fh.read(n)
        self.left -= len(data)
        return data

    def close(self) -> None:
        self.fh.close()


def rss_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for pid {pid}")


def wait_healthy(base: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("web-ui exited during start-up")
        try:
            if requests.get(base + "/healthz", timeout=2).ok:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.2)
    raise RuntimeError("web-ui did not start")


def upload(base: str, path: Path, size: int) -> float:
    s = requests.Session()
    job = s.post(base + "/api/jobs", json={"mode": "sbs"}, timeout=30)
    job.raise_for_status()
    job_id = job.json()["job_id"]
    api = f"{base}/api/jobs/{job_id}/uploads"
    plan = s.post(api, json={"file_name": path.name, "size": size}, timeout=30).json()
    upload_id, part_size, count = plan["upload_id"], plan["part_size"], plan["part_count"]
    started = time.perf_counter()
    for first in range(1, count + 1, 50):
        numbers = list(range(first, min(first + 50, count + 1)))
        urls = s.post(f"{api}/{upload_id}/parts", json={"part_numbers": numbers},
                      timeout=30).json()["urls"]
        for n in numbers:
            start = (n - 1) * part_size
            body = PartReader(path, start, min(part_size, size - start))
            try:
                s.put(urls[str(n)], data=body, timeout=600).raise_for_status()
            finally:
                body.close()
    done = s.post(f"{api}/{upload_id}/complete", json={}, timeout=1800)
    done.raise_for_status()
    elapsed = time.perf_counter() - started
    assert done.json()["size"] == size, done.json()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=3.0)
    parser.add_argument("--part-mib", type=int, default=64)
    args = parser.parse_args()
    size = int(args.gib * 1024 * MIB)
    work = Path(tempfile.mkdtemp(prefix="multipart-bench-"))
    port = 18000 + os.getpid() % 1000
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "STEREO_SPOT_DATA_DIR": str(work / "data"),
           "STEREO_SPOT_PUBLIC_BASE_URL": base, "STEREO_SPOT_PORT": str(port),
           "STEREO_SPOT_UPLOAD_PART_BYTES": str(args.part_mib * MIB)}
    source = work / "sparse source.mp4"
    with open(source, "wb") as fh:
        fh.truncate(size)  # sparse: no disk blocks, reads as zeros
    proc = subprocess.Popen([str(ROOT / ".venv/bin/web-ui")], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(base, proc)
        before = rss_kib(proc.pid, "VmRSS")
        elapsed = upload(base, source, size)
        peak = rss_kib(proc.pid, "VmHWM")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    print(f"uploaded {size / 1024**3:.2f} GiB in {args.part_mib} MiB parts in {elapsed:.1f} s "
          f"({size / MIB / elapsed:.0f} MiB/s, incl. joining the parts)")
    print(f"web-ui RSS before upload {before / 1024:.0f} MiB, peak {peak / 1024:.0f} MiB "
          f"(ratio {peak / before:.2f}; file/peak = {size / 1024 / peak:.0f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
