"""The command line: options, settings overrides and one-line failures."""

from pathlib import Path

import pytest

from local_stack import cli


def test_options_override_settings_and_the_public_url_follows_the_port(tmp_path, monkeypatch):
    monkeypatch.delenv("STEREO_SPOT_PUBLIC_BASE_URL", raising=False)
    args = cli._parser().parse_args(
        ["serve", "--port", "8765", "--workers", "3", "--data-dir", str(tmp_path)])
    settings = cli._settings(args)
    assert settings.port == 8765
    assert settings.workers == 3
    assert settings.data_dir == tmp_path
    assert settings.public_base_url == "http://127.0.0.1:8765"


def test_convert_of_a_missing_file_fails_with_one_line(tmp_path: Path, capsys):
    rc = cli.main(["convert", str(tmp_path / "nope.mp4"), "-o", str(tmp_path / "o.mp4"),
                   "--data-dir", str(tmp_path / "d")])
    err = capsys.readouterr().err.strip()
    assert rc == 1
    assert err.startswith("stereo-spot: input file not found")
    assert "\n" not in err


def test_convert_rejects_an_unknown_mode(capsys):
    try:
        cli.main(["convert", "in.mp4", "-o", "o.mp4", "--mode", "hologram"])
    except SystemExit as exc:
        assert exc.code == 2
    assert "invalid OutputMode value" in capsys.readouterr().err


def test_convert_takes_sdr_and_3d_subtitles_options():
    args = cli._parser().parse_args(["convert", "in.mp4", "-o", "o.mp4", "--dynamic-range",
                                     "sdr", "--subtitles-3d"])
    assert (args.dynamic_range, args.subtitles_3d) == ("sdr", True)
    args = cli._parser().parse_args(["convert", "in.mp4", "-o", "o.mp4"])
    assert (args.dynamic_range, args.subtitles_3d) == ("keep", False)


@pytest.mark.parametrize(("argv", "command"), [
    (["convert", "in.mp4", "-o", "o.mp4"], "convert"),
    (["-v", "convert", "in.mp4"], "convert"),
    (["--verbose", "jobs"], "jobs"),
    ([], None),
])
def test_the_launcher_finds_the_subcommand_behind_the_global_options(argv, command):
    from local_stack.launch import _command

    assert _command(argv) == command


@pytest.mark.parametrize(("argv", "env", "cpus", "workers"), [
    (["convert", "a.mp4", "--workers", "3"], None, 2, 3),
    (["convert", "a.mp4", "--workers=2"], "5", 2, 2),  # the option wins over the variable
    (["convert", "a.mp4"], "4", 2, 4),
    (["convert", "a.mp4"], None, 8, 4),  # one per two cores
    (["convert", "a.mp4", "--workers", "many"], None, 2, 1),  # the settings will refuse it
])
def test_the_launcher_starts_as_many_video_workers_as_the_settings_will_ask_for(
        argv, env, cpus, workers, monkeypatch):
    from local_stack import launch

    if env is None:
        monkeypatch.delenv("STEREO_SPOT_WORKERS", raising=False)
    else:
        monkeypatch.setenv("STEREO_SPOT_WORKERS", env)
    monkeypatch.setattr("os.cpu_count", lambda: cpus)
    assert launch._video_workers(argv) == workers
    if "many" not in argv:  # and the settings agree
        monkeypatch.setenv("STEREO_SPOT_DATA_DIR", ".")
        args = cli._parser().parse_args([*argv, "-o", "o.mp4"])
        assert cli._settings(args).workers == workers


@pytest.mark.parametrize(("workers", "cpus", "early"), [(1, 2, 1), (2, 2, 1), (2, 4, 2),
                                                        (8, 4, 3), (1, 1, 1)])
def test_as_many_start_early_as_there_are_cores_beside_the_clis_own(workers, cpus, early):
    from local_stack.launch import _early_count

    assert _early_count(workers, cpus) == early


def test_convert_onto_the_input_under_any_of_its_names_leaves_it_byte_for_byte(
        tmp_path: Path, capsys, monkeypatch):
    import os

    source = tmp_path / "film.mp4"
    source.write_bytes(b"\x00\x00\x00\x18ftypmp42 the user's only copy")
    original = source.read_bytes()
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.mp4").symlink_to(source)
    os.link(source, tmp_path / "hard.mp4")
    monkeypatch.chdir(tmp_path)
    for output in ["film.mp4", "./film.mp4", "sub/../film.mp4", str(source.resolve()),
                   "link.mp4", "hard.mp4"]:
        for extra in ([], ["--overwrite"]):
            rc = cli.main(["convert", "film.mp4", "-o", output, "--data-dir", "d", *extra])
            err = capsys.readouterr().err.strip()
            assert rc == 1, output
            assert "is the input file" in err and "\n" not in err
            assert source.read_bytes() == original
    assert not (tmp_path / "d").exists()  # refused before any work


def test_convert_keeps_an_existing_output_unless_overwrite(tmp_path: Path, capsys):
    source, output = tmp_path / "a.mp4", tmp_path / "a_3d.mp4"
    source.write_bytes(b"video")
    output.write_bytes(b"earlier 3D")
    rc = cli.main(["convert", str(source), "-o", str(output), "--data-dir", str(tmp_path / "d")])
    assert rc == 1
    assert "already exists; pass --overwrite" in capsys.readouterr().err
    assert output.read_bytes() == b"earlier 3D"
    # negative control: with --overwrite the guard lets it through to the pipeline,
    # which then says what is wrong with this 5-byte "video"
    rc = cli.main(["convert", str(source), "-o", str(output), "--overwrite",
                   "--data-dir", str(tmp_path / "d")])
    assert rc == 1
    assert "already exists" not in capsys.readouterr().err


def test_convert_takes_the_layout_and_encoding_options():
    args = cli._parser().parse_args([
        "convert", "in.mp4", "-o", "o.mp4", "--mode", "vr180", "--codec", "av1", "--pix-fmt",
        "yuv420p10le", "--bitrate", "8000", "--max-fps", "30", "--start", "5", "--end", "9.5",
        "--crf", "23"])
    assert (args.mode, args.codec, args.pix_fmt) == ("vr180", "av1", "yuv420p10le")
    assert (args.bitrate, args.max_fps, args.start, args.end, args.crf) == (8000, 30, 5, 9.5, 23)
    args = cli._parser().parse_args(["convert", "in.mp4", "-o", "o.mp4", "--cross-eyed"])
    assert args.cross_eyed and args.codec == "x264"


def test_a_start_after_the_end_is_refused_before_any_work(tmp_path: Path, capsys):
    source = tmp_path / "a.mp4"
    source.write_bytes(b"video")
    rc = cli.main(["convert", str(source), "-o", str(tmp_path / "o.mp4"), "--start", "3",
                   "--end", "2", "--data-dir", str(tmp_path / "d")])
    assert rc == 1
    assert "--end 2 must come after --start 3" in capsys.readouterr().err


COMFORT_FLAGS = ["--auto-convergence", "--foreground-scale", "1.5", "--edge-dilation", "2",
                 "--ipd-offset", "0.5", "--floating-window", "--synthesised-eye", "left",
                 "--depth-curve", "near", "--viewing", "tv-55", "--ipd", "60",
                 "--comfort", "fix", "--anaglyph-method", "gray"]


def test_convert_takes_the_same_comfort_options_as_the_engine():
    from shared_types.comfort_cli import params_from_args
    from stereo_inference.cli import build_parser

    ours = cli._parser().parse_args(["convert", "in.mp4", "-o", "o.mp4", *COMFORT_FLAGS])
    engine = build_parser().parse_args(["convert", "in.mp4", "o.mp4", *COMFORT_FLAGS])
    assert params_from_args(ours) == params_from_args(engine)
    params = params_from_args(ours)
    assert (params.viewing, params.viewer_ipd_mm, params.comfort) == ("tv-55", 60.0, "fix")
    assert params.fit_strength  # no --divergence: the preset sets the strength
    given = cli._parser().parse_args(["convert", "in.mp4", "-o", "o.mp4", "--viewing",
                                      "tv-55", "--divergence", "3"])
    assert not params_from_args(given).fit_strength


def test_convert_passes_the_depth_stride_to_the_workers_and_takes_a_depth_video():
    args = cli._parser().parse_args(["convert", "in.mp4", "-o", "o.mp4", "--depth-stride",
                                     "3", "--depth-video", "d.mkv"])
    assert cli._settings(args).depth_stride == 3
    assert args.depth_video == Path("d.mkv")


def test_a_custom_viewing_without_its_size_fails_with_one_line(tmp_path, capsys):
    source = tmp_path / "in.mp4"
    source.write_bytes(b"x")
    rc = cli.main(["convert", str(source), "-o", str(tmp_path / "o.mp4"), "--viewing",
                   "custom", "--data-dir", str(tmp_path / "d")])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and "custom viewing needs the screen width" in err
