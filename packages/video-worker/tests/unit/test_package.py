from shared_types.testing.import_graph import top_level_modules_loaded_by


def test_the_worker_starts_without_importing_the_engine():
    """The engine (and torch) load on the first in-process conversion, so an
    http or SageMaker worker runs where the engine is not installed."""
    loaded = top_level_modules_loaded_by("video_worker.main", "video_worker.bootstrap")
    assert "video_worker" in loaded
    assert loaded & {"torch", "stereo_inference"} == set()
    # nor the http backend's client (and the CLI tools httpx pulls in) unless configured
    assert loaded & {"httpx", "rich", "click"} == set()


def test_a_worker_waiting_for_its_environment_exits_when_it_is_not_needed():
    """``--config-from-stdin`` (``stereo-spot convert``'s early worker): the end of
    its input before a handoff means the command that started it ended first."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", "import sys; from video_worker.main import main; "
                               "sys.exit(main(['--config-from-stdin']))"],
        input=b"", capture_output=True, timeout=120)
    assert done.returncode == 0
    assert b"consumer started" not in done.stderr
