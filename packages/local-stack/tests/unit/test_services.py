"""Which children the stack runs and what environment they read."""

import os
import sys
from pathlib import Path

import pytest

from local_stack.errors import ServiceMissingError
from local_stack.services import service_argv, settings_env, stack_specs, worker_specs
from local_stack.settings import StackSettings


def test_the_stack_is_web_ui_media_worker_and_n_video_workers(tmp_path: Path):
    settings = StackSettings(data_dir=tmp_path, workers=3)
    names = [s.name for s in stack_specs(settings)]
    assert names == ["web-ui", "media-worker-1", "video-worker-1", "video-worker-2",
                     "video-worker-3"]
    assert [s.name for s in worker_specs(settings)] == names[1:]


def _read_back(cls, env: dict[str, str], monkeypatch):
    """``cls`` as a child reads it: from nothing but ``env``."""
    for name in [n for n in os.environ if n.startswith("STEREO_SPOT_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return cls(_env_file=None)


@pytest.mark.parametrize("child", ["web-ui", "media-worker-1", "video-worker-1"])
def test_each_child_reads_back_exactly_the_typed_settings_built_for_it(
        tmp_path: Path, monkeypatch, child: str):
    from media_worker.settings import MediaWorkerSettings
    from video_worker.settings import VideoWorkerSettings
    from web_ui.settings import WebSettings

    from local_stack.services import media_worker_settings, video_worker_settings, web_settings

    settings = StackSettings(data_dir=tmp_path, port=8123, segment_seconds=2.5,
                             visibility_s=3, lease_s=3, aws_endpoint_url=None, workers=2)
    built = {"web-ui": web_settings(settings), "media-worker-1": media_worker_settings(settings),
             "video-worker-1": video_worker_settings(settings, cores=1)}[child]
    cls = {"web-ui": WebSettings, "media-worker-1": MediaWorkerSettings,
           "video-worker-1": VideoWorkerSettings}[child]
    [spec] = [s for s in stack_specs(settings) if s.name == child]
    names = {k.removeprefix("STEREO_SPOT_").lower() for k in spec.env
             if k.startswith("STEREO_SPOT_")}
    assert names <= set(cls.model_fields)  # its own class's fields, nothing else
    assert _read_back(cls, spec.env, monkeypatch).model_dump() == built.model_dump()
    assert built.data_dir == tmp_path and "STEREO_SPOT_AWS_ENDPOINT_URL" not in spec.env


def test_children_read_the_settings_back_from_their_environment(tmp_path: Path, monkeypatch):
    from web_ui.settings import WebSettings

    from local_stack.services import web_settings

    settings = StackSettings(data_dir=tmp_path, port=8123, aws_endpoint_url=None)
    env = settings_env(web_settings(settings))
    assert env["STEREO_SPOT_DATA_DIR"] == str(tmp_path.resolve())
    assert env["STEREO_SPOT_PORT"] == "8123"
    assert "STEREO_SPOT_AWS_ENDPOINT_URL" not in env
    reread = _read_back(WebSettings, env, monkeypatch)
    assert reread.port == 8123


def test_a_bad_value_for_a_child_is_refused_before_any_child_starts(tmp_path: Path):
    """Negative control: the children's settings are validated as their own class
    in the CLI (the stack's lease longer than the media worker's visibility)."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="lease_s must not be longer"):
        stack_specs(StackSettings(data_dir=tmp_path, visibility_s=5, lease_s=50))


def test_a_service_runs_from_this_interpreter_environment():
    argv = service_argv("media-worker")
    assert Path(argv[0]).parent == Path(sys.executable).parent or argv[0] == sys.executable


def test_an_unknown_service_is_a_clear_error():
    with pytest.raises(ServiceMissingError, match="unknown service"):
        service_argv("no-such-service")


@pytest.mark.parametrize("seamless", [True, False])
def test_video_workers_are_the_plain_console_script_with_the_seamless_switch(
        tmp_path: Path, monkeypatch, seamless: bool):
    from video_worker.settings import VideoWorkerSettings

    settings = StackSettings(data_dir=tmp_path, workers=2, seamless_segments=seamless)
    video = [s for s in worker_specs(settings) if s.name.startswith("video-worker")]
    assert [s.argv for s in video] == [service_argv("video-worker")] * 2
    for name, value in video[0].env.items():  # what the child process reads
        monkeypatch.setenv(name, value)
    assert VideoWorkerSettings(_env_file=None).seamless_segments is seamless


def test_every_setting_but_the_clis_own_is_a_field_of_some_child():
    """A field added to StackSettings (or BackendSettings) reaches the child whose
    class declares it without anyone listing it; one that no child declares
    would reach none, so it must be declared CLI-only."""
    from media_worker.settings import MediaWorkerSettings
    from video_worker.settings import VideoWorkerSettings
    from web_ui.settings import WebSettings

    from local_stack.services import CLI_ONLY_FIELDS

    children = set().union(*(cls.model_fields for cls in (
        MediaWorkerSettings, VideoWorkerSettings, WebSettings)))
    assert set(StackSettings.model_fields) - CLI_ONLY_FIELDS <= children


def test_cli_only_fields_are_fields_no_service_reads():
    from media_worker.settings import MediaWorkerSettings
    from video_worker.settings import VideoWorkerSettings
    from web_ui.settings import WebSettings

    from local_stack.services import CLI_ONLY_FIELDS

    read_by_services = set().union(*(cls.model_fields for cls in (
        MediaWorkerSettings, VideoWorkerSettings, WebSettings)))
    assert CLI_ONLY_FIELDS <= set(StackSettings.model_fields)
    assert not CLI_ONLY_FIELDS & read_by_services


@pytest.mark.parametrize(("cpus", "workers", "cores"),
                         [(2, 1, 2), (2, 2, 1), (2, 4, 1), (16, 3, 5), (1, 1, 1)])
def test_each_conversion_gets_an_equal_share_of_the_cores(cpus, workers, cores):
    from local_stack.parallelism import conversion_cores

    assert conversion_cores(cpus, workers) == cores


def test_video_workers_read_their_core_share_and_media_workers_get_none(tmp_path, monkeypatch):
    from video_worker.settings import VideoWorkerSettings

    specs = worker_specs(StackSettings(data_dir=tmp_path, workers=2), cpu_count=2)
    video = [s for s in specs if s.name.startswith("video-worker")]
    media = [s for s in specs if s.name.startswith("media-worker")]
    assert {s.env["STEREO_SPOT_CONVERSION_CORES"] for s in video} == {"1"}
    assert all("STEREO_SPOT_CONVERSION_CORES" not in s.env for s in media)
    for name, value in video[0].env.items():
        if name.startswith("STEREO_SPOT_"):
            monkeypatch.setenv(name, value)
    assert VideoWorkerSettings().conversion_cores == 1
    one = worker_specs(StackSettings(data_dir=tmp_path, workers=1), cpu_count=2)
    assert one[-1].env["STEREO_SPOT_CONVERSION_CORES"] == "2"


@pytest.mark.parametrize(("requested", "cpus", "frames", "workers"), [
    (2, 2, 384, 1),    # 16 s at 24 fps on two cores: the second worker would only share them
    (2, 2, 720, 2),    # 30 s: each worker's run holds MIN_SHARED_LANE_FRAMES
    (2, 2, 719, 1),
    (3, 2, 1080, 3),
    (4, 2, 1080, 3),   # no more than the runs that pay
    (2, 2, None, 2),   # length unknown: as asked
    (2, 4, 48, 2),     # two cores each: nothing shared, nothing to weigh
    (6, 4, 48, 2),     # beyond one per two cores: only those
    (1, 1, 48, 1),
])
def test_a_video_gets_only_the_workers_it_is_worth(requested, cpus, frames, workers):
    from local_stack.parallelism import workers_for_video

    assert workers_for_video(requested, cpus, frames) == workers


@pytest.mark.parametrize(("cpus", "workers"), [(1, 1), (2, 1), (3, 1), (4, 2), (16, 8)])
def test_the_default_is_one_worker_per_two_cores(cpus, workers, monkeypatch):
    from local_stack.parallelism import default_workers

    assert default_workers(cpus) == workers
    monkeypatch.setattr("os.cpu_count", lambda: cpus)
    monkeypatch.delenv("STEREO_SPOT_WORKERS", raising=False)
    assert StackSettings().workers == workers


def test_the_media_worker_publishes_one_segment_run_per_video_worker(tmp_path, monkeypatch):
    """It reads SEGMENT_LANES = workers (media_worker.segment_order), so each
    video-worker continues its own run with the depth state in hand."""
    from media_worker.settings import MediaWorkerSettings

    for workers in (1, 2):
        specs = worker_specs(StackSettings(data_dir=tmp_path, workers=workers), cpu_count=2)
        media = [s for s in specs if s.name.startswith("media-worker")]
        for name, value in media[0].env.items():
            if name.startswith("STEREO_SPOT_"):
                monkeypatch.setenv(name, value)
        assert MediaWorkerSettings().segment_lanes == workers


@pytest.mark.parametrize("workers", [1, 3])
def test_a_media_worker_hosted_in_the_cli_reads_what_a_child_would(tmp_path, monkeypatch, workers):
    """``stereo-spot convert`` runs the media worker as threads of its own process
    (``local_stack.media_host``): the same settings as a media-worker child, down
    to a variable only the media worker knows."""
    from media_worker.settings import MediaWorkerSettings

    from local_stack.services import media_worker_settings, media_worker_specs

    monkeypatch.setenv("STEREO_SPOT_MAX_FPS", "61")  # read by the media worker only
    settings = StackSettings(data_dir=tmp_path, workers=workers, segment_seconds=7,
                             visibility_s=33, lease_s=22)
    hosted = media_worker_settings(settings)
    for name, value in media_worker_specs(settings)[0].env.items():
        if name.startswith("STEREO_SPOT_"):
            monkeypatch.setenv(name, value)
    child = MediaWorkerSettings()
    assert hosted.model_dump() == child.model_dump()
    assert (hosted.segment_lanes, hosted.segment_seconds, hosted.max_fps) == (workers, 7, 61)


def test_the_workers_temp_folders_lie_in_the_data_folder_unless_set(tmp_path: Path):
    from local_stack.services import media_worker_settings

    settings = StackSettings(data_dir=tmp_path / "data")
    env = settings_env(media_worker_settings(settings))
    assert env["STEREO_SPOT_WORK_DIR"] == str((tmp_path / "data" / "work").resolve())
    assert media_worker_settings(settings).work_dir == tmp_path / "data" / "work"
    moved = settings.model_copy(update={"data_dir": tmp_path / "other"})  # --data-dir
    work = settings_env(media_worker_settings(moved))["STEREO_SPOT_WORK_DIR"]
    assert work == str((tmp_path / "other" / "work").resolve())
    chosen = StackSettings(data_dir=tmp_path / "data", work_dir=tmp_path / "scratch")
    work = settings_env(media_worker_settings(chosen))["STEREO_SPOT_WORK_DIR"]
    assert work == str((tmp_path / "scratch").resolve())
