import os
import re
import shutil
import subprocess
import sys

import av
import pytest
from stereo_media.ffmpeg import ffmpeg_path

from stereo_inference import native
from stereo_inference.cli import build_parser, main

from .conftest import read_video


def test_convert_writes_the_output_and_reports(clip, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path))
    out = tmp_path / "o.mp4"
    code = main(["convert", str(clip), str(out), "--mode", "tb", "--divergence", "3",
                 "--crf", "28", "--preset", "ultrafast", "--no-progress"])
    assert code == 0
    assert "24 frames, 160x192" in capsys.readouterr().out
    assert read_video(out)["size"] == (160, 192)


def test_timings_say_where_the_time_went(clip, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path))
    out = tmp_path / "o.mp4"
    assert main(["convert", str(clip), str(out), "--mode", "half-sbs", "--preset",
                 "ultrafast", "--no-progress", "--timings"]) == 0
    line, loops = capsys.readouterr().out.splitlines()[-2:]
    assert line.startswith("busy/CPU s per stage (starved/blocked): ")
    for stage in ("decode", "depth", "render", "encode", "mux", "codec threads"):
        assert f"{stage} " in line
    assert re.search(r"render [\d.]+/[\d.]+ \([\d.]+/[\d.]+\)", line)  # its waits
    # and what ran the render's loops: the C extension (built here), else OpenCV
    assert loops == f"CPU plane loops: {native.backend()}"
    assert loops.endswith(("c-avx512", "c-avx2", "c-scalar", "opencv"))
    monkeypatch.setattr(native, "planes", None)
    assert main(["convert", str(clip), str(out), "--preset", "ultrafast", "--no-progress",
                 "--timings", "--overwrite"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "CPU plane loops: opencv"
    # without the flag, only the summary line
    assert main(["convert", str(clip), str(out), "--no-progress", "--overwrite"]) == 0
    assert "per stage" not in capsys.readouterr().out


def test_convert_writes_the_container_asked_for(clip, tmp_path, monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path))
    out = tmp_path / "o.mp4"
    assert main(["convert", str(clip), str(out), "--container", "mkv", "--preset",
                 "ultrafast", "--no-progress"]) == 0
    assert out.read_bytes()[:4] == b"\x1a\x45\xdf\xa3"  # the EBML (Matroska) magic


def test_a_bad_input_exits_2_with_the_reason(tmp_path, capsys):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"")
    assert main(["convert", str(bad), str(tmp_path / "o.mp4"), "--no-progress"]) == 2
    assert "empty" in capsys.readouterr().err


def test_unknown_choices_are_refused_by_the_parser():
    with pytest.raises(SystemExit):
        build_parser().parse_args(["convert", "a", "b", "--mode", "hologram"])


def test_serve_takes_host_and_port():
    args = build_parser().parse_args(["serve", "--host", "10.0.0.5", "--port", "9000"])
    assert (args.host, args.port) == ("10.0.0.5", 9000)


def test_serve_binds_this_machine_only_unless_told():
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.sagemaker) == ("127.0.0.1", 8080, False)


def test_serve_outside_sagemaker_refuses_to_start_without_a_shared_secret(monkeypatch, capsys):
    monkeypatch.delenv("STEREO_SPOT_INFERENCE_SHARED_SECRET", raising=False)
    assert main(["serve"]) == 2
    assert "STEREO_SPOT_INFERENCE_SHARED_SECRET" in capsys.readouterr().err


def test_serve_refuses_an_empty_shared_secret(monkeypatch, capsys):
    monkeypatch.setenv("STEREO_SPOT_INFERENCE_SHARED_SECRET", "")
    assert main(["serve"]) == 2
    assert "at least 16 characters" in capsys.readouterr().err


def test_models_download_refuses_unknown_names(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as exit_:
        main(["models", "download", "midas"])
    assert exit_.value.code == 2
    assert "invalid choice: 'midas'" in capsys.readouterr().err


def test_a_cpu_conversion_with_the_default_depth_never_imports_torch(clip, tmp_path):
    """torch's import alone costs a short clip more than its render: the CLI's
    weight-free CPU path runs on numpy and OpenCV only."""
    out = tmp_path / "out.mp4"
    # -X importtime logs every module the process imports, whenever it does
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "stereo_inference.cli",
                           "convert", str(clip), str(out), "--device", "cpu",
                           "--depth", "heuristic", "--no-progress"],
                          capture_output=True, text=True, timeout=300, check=True)
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "numpy" in imported and "cv2" in imported  # the log is complete
    assert "torch" not in imported
    assert f"wrote {out}" in done.stdout  # printed before the process ends early
    assert read_video(out)["frames"] == read_video(clip)["frames"]


def test_the_cli_writes_a_whole_file_that_begins_at_0(tmp_path, monkeypatch):
    # a transport stream's clock starts where the broadcast's was (here 1000 s in)
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path))
    late = tmp_path / "recording.ts"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=96x64:rate=12:duration=1", "-c:v", "libx264", "-preset",
                    "ultrafast", "-output_ts_offset", "1000", "-f", "mpegts", str(late)],
                   check=True, timeout=60)
    out = tmp_path / "o.mp4"
    assert main(["convert", str(late), str(out), "--no-progress"]) == 0
    with av.open(str(out)) as c:
        assert c.start_time == 0


def _names_of(source):
    """Every other spelling of ``source`` (cwd is its folder): the path itself,
    ./name, a relative detour, the absolute path, a symbolic and a hard link."""
    folder = source.parent
    (folder / "sub").mkdir(exist_ok=True)
    (folder / "link.mp4").symlink_to(source)
    os.link(source, folder / "hard.mp4")
    return [str(source), f"./{source.name}", f"sub/../{source.name}", str(source.resolve()),
            "link.mp4", "hard.mp4"]


def test_converting_a_file_onto_itself_leaves_the_source_byte_for_byte(
        clip, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path))
    source = tmp_path / "film.mp4"
    shutil.copyfile(clip, source)
    original = source.read_bytes()
    monkeypatch.chdir(tmp_path)
    for output in _names_of(source):
        for extra in ([], ["--overwrite"]):
            assert main(["convert", "film.mp4", output, "--no-progress", *extra]) == 2, output
            assert "is the input file" in capsys.readouterr().err
            assert source.read_bytes() == original, output
    # the engine itself refuses too, whoever calls it
    from stereo_inference.convert import convert_file
    from stereo_inference.errors import InvalidRequestError

    with pytest.raises(InvalidRequestError, match="is the input file"):
        convert_file(source, tmp_path / "hard.mp4", mode="half-sbs")
    assert source.read_bytes() == original
    # negative control: another path converts, and a second run keeps it
    assert main(["convert", "film.mp4", "other.mp4", "--no-progress"]) == 0
    first = (tmp_path / "other.mp4").read_bytes()
    assert main(["convert", "film.mp4", "other.mp4", "--no-progress"]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert (tmp_path / "other.mp4").read_bytes() == first


def test_start_and_end_convert_only_that_part(clip, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path))
    out = tmp_path / "part.mp4"
    assert main(["convert", str(clip), str(out), "--start", "0.25", "--end", "0.75",
                 "--codec", "x265", "--no-progress"]) == 0
    facts = read_video(out)
    assert facts["frames"] == 12 and facts["times"][0] == 0.0 and facts["audio"] == 1
    assert not list(tmp_path.glob(".span-*"))  # the cut copy is gone
    assert main(["convert", str(clip), str(tmp_path / "x.mp4"), "--start", "0.5", "--end",
                 "0.2", "--no-progress"]) == 2
    assert "must come after" in capsys.readouterr().err


def test_convert_takes_the_comfort_options_and_writes_the_report(clip, tmp_path, capsys,
                                                                monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_MODELS_DIR", str(tmp_path))
    out = tmp_path / "o.mp4"
    code = main(["convert", str(clip), str(out), "--viewing", "tv-65", "--auto-convergence",
                 "--floating-window", "--comfort", "fix", "--preset", "ultrafast",
                 "--no-progress"])
    assert code == 0
    assert f"comfort report: {out}.comfort.json" in capsys.readouterr().out
    import json

    report = json.loads((tmp_path / "o.mp4.comfort.json").read_text())
    assert report["fixed"] and report["viewing"]["preset"] == "tv-65"
    assert report["shots"] and all(s["outside_zone_s"] == 0 for s in report["shots"])
    off = tmp_path / "off.mp4"
    assert main(["convert", str(clip), str(off), "--comfort", "off", "--preset", "ultrafast",
                 "--no-progress"]) == 0
    assert not (tmp_path / "off.mp4.comfort.json").exists()  # negative: none asked for
    assert main(["convert", str(clip), str(tmp_path / "custom.mp4"), "--viewing", "custom",
                 "--no-progress"]) == 2
    assert "custom viewing needs the screen width" in capsys.readouterr().err
