from shared_types.testing.import_graph import top_level_modules_loaded_by


def test_the_worker_starts_without_the_engine_or_boto3():
    """The media worker's image has ffmpeg, not torch; boto3 loads only on AWS."""
    loaded = top_level_modules_loaded_by("media_worker.main", "media_worker.bootstrap")
    assert "media_worker" in loaded
    assert loaded & {"torch", "stereo_inference", "boto3"} == set()
