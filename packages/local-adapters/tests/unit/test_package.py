from shared_types.keys import source_key
from shared_types.settings import BackendSettings

import local_adapters


def test_the_packages_backend_routes_a_source_upload_to_chunking(tmp_path):
    backend = local_adapters.build_backend(BackendSettings(data_dir=tmp_path))
    backend.input_storage.put_bytes(source_key("job-1"), b"video bytes")
    (message,) = backend.chunking_queue.receive(wait_s=0, visibility_s=30)
    assert source_key("job-1") in message.body
    assert backend.video_queue.receive(wait_s=0, visibility_s=30) == []


def test_opening_the_backend_leaves_the_storage_app_and_starlette_to_web_ui():
    """Every worker and the CLI open the local backend; only web-ui serves /storage."""
    from shared_types.testing.import_graph import top_level_modules_loaded_by

    loaded = top_level_modules_loaded_by("local_adapters", "local_adapters.backend")
    assert "local_adapters" in loaded
    assert "starlette" not in loaded
    assert "starlette" in top_level_modules_loaded_by("local_adapters.storage_app")
