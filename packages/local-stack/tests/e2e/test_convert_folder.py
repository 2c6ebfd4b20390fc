"""``stereo-spot convert DIR -o OUTDIR``: recursive, resumable, each file converted once."""

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import av
from shared_types.testing.waiting import wait_until
from stereo_media.testing.media import make_video

VENV_BIN = Path(sys.executable).parent
NAMES = ["a.mp4", "sub/b.mov", "sub/deeper/c.mkv", "z.mp4"]


def _folder(root: Path) -> Path:
    src = root / "in"
    for i, name in enumerate(NAMES):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        make_video(src / name, seconds=2.0 + i % 2, audio=i % 2 == 0)
    (src / "notes.txt").write_text("not a video")
    (src / ".hidden.mp4").write_bytes(b"")  # hidden: left alone
    return src


def _outputs(out: Path) -> dict[str, tuple[int, int]]:
    """Each finished output (relative path) with its inode and mtime."""
    return {p.relative_to(out).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in out.rglob("*_Half_SBS.mp4")}


def _output_of(name: str) -> str:
    return (Path(name).parent / f"{Path(name).stem}_Half_SBS.mp4").as_posix()


def _converted(stdout: str) -> list[str]:
    return re.findall(r"^\[\d+/\d+\] (\S+) -> .*: converted in", stdout, re.M)


def test_a_killed_folder_run_resumes_and_converts_each_file_exactly_once(
    tmp_path: Path, stack_env
):
    src = _folder(tmp_path)
    out = src / "3d"  # inside the input folder: never taken for input
    argv = [str(VENV_BIN / "stereo-spot"), "convert", str(src), "-o", str(out),
            "--workers", "1", "--segment-seconds", "2"]
    env = stack_env(tmp_path / "data")
    first = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        assert wait_until(lambda: len(_outputs(out)) >= 1, timeout_s=240), "nothing converted"
    finally:
        first.send_signal(signal.SIGKILL)  # no clean-up of any kind
        first.communicate(timeout=60)
    done_when_killed = _outputs(out)
    assert 1 <= len(done_when_killed) < len(NAMES)  # killed in the middle of the folder
    second = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=400)
    assert second.returncode == 0, second.stderr + second.stdout
    converted_again = _converted(second.stdout)
    final = _outputs(out)
    expected = {_output_of(n) for n in NAMES}
    assert set(final) == expected  # every sub-folder kept
    # what the first run finished is kept as it was, not converted again ...
    for name, identity in done_when_killed.items():
        assert final[name] == identity
    assert len(converted_again) == len(NAMES) - len(done_when_killed)
    # ... and everything else was converted by the second run, once
    assert {_output_of(n) for n in converted_again} == expected - set(done_when_killed)
    assert f"{len(NAMES)} video(s): {len(converted_again)} converted, " \
           f"{len(done_when_killed)} already done, 0 failed" in second.stdout
    for path in out.rglob("*_Half_SBS.mp4"):
        with av.open(str(path)) as container:
            assert sum(1 for _ in container.decode(video=0)) >= 48
    assert not list(out.rglob(".*.part")) and not (out / ".stereo-spot-data").exists()
    manifest = json.loads((out / ".stereo-spot-done.json").read_text())["done"]
    assert sorted(manifest) == sorted(NAMES)

    # a third run has nothing left to do
    third = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert third.returncode == 0
    assert _converted(third.stdout) == []
    assert f"{len(NAMES)} video(s): 0 converted, {len(NAMES)} already done" in third.stdout
    assert _outputs(out) == final


def test_a_folder_run_onto_its_own_folder_is_refused(tmp_path: Path, stack_env):
    src = tmp_path / "in"
    src.mkdir()
    make_video(src / "a.mp4", seconds=1.0)
    before = (src / "a.mp4").read_bytes()
    result = subprocess.run([str(VENV_BIN / "stereo-spot"), "convert", str(src), "-o",
                             str(tmp_path / "." / "in")], env=stack_env(tmp_path / "d"),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "is the input folder" in result.stderr
    assert sorted(p.name for p in src.iterdir()) == ["a.mp4"]
    assert (src / "a.mp4").read_bytes() == before
