from shared_types.testing.import_graph import top_level_modules_loaded_by


def test_the_worker_starts_without_importing_the_engine():
    """The engine (and torch) load on the first in-process conversion, so an
    http or SageMaker worker runs where the engine is not installed."""
    loaded = top_level_modules_loaded_by("video_worker.main", "video_worker.bootstrap")
    assert "video_worker" in loaded
    assert loaded & {"torch", "stereo_inference"} == set()
