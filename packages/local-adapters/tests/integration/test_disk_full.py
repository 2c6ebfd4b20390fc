"""A data folder on a disk that fills up (a real 8 MiB tmpfs): a write that
finds it full raises DiskFullError naming the folder, stores nothing, leaves no
temp file; /storage answers 507 with that sentence; once space is freed the
same write works."""

import pytest
from shared_types.errors import DiskFullError
from shared_types.failure import failure_code
from shared_types.settings import BackendSettings
from shared_types.testing.disk import entries, fill, small_disk
from starlette.testclient import TestClient

from local_adapters import build_backend
from local_adapters.storage_app import storage_app

from .conftest import path_of

KEY = "input/job-1/source.mp4"
DATA = bytes(range(256)) * 4096  # 1 MiB


@pytest.fixture
def full_data_dir(tmp_path):
    with small_disk(tmp_path / "disk", 8 * 1024 * 1024) as disk:
        yield disk / "data"


@pytest.fixture
def backend(full_data_dir):
    return build_backend(BackendSettings(data_dir=full_data_dir, signing_secret="test-secret",
                                         public_base_url="http://testserver"))


def test_a_put_on_a_full_disk_stores_nothing_and_says_where(backend, full_data_dir, tmp_path):
    source = tmp_path / "source.mp4"
    source.write_bytes(DATA)
    filler = fill(full_data_dir, leave_bytes=256 * 1024)

    with pytest.raises(DiskFullError) as info:
        backend.input_storage.put_file(KEY, source)

    assert failure_code(info.value) == "disk_full"
    assert f"no space was left in {full_data_dir} while storing" in str(info.value)
    assert not backend.input_storage.exists(KEY)
    assert entries(full_data_dir / "tmp") == []  # the half-written temp file is gone
    filler.unlink()  # space comes back: the same write works
    assert backend.input_storage.put_file(KEY, source).size == len(DATA)


def test_a_get_into_a_full_folder_names_that_folder(backend, full_data_dir, tmp_path):
    backend.input_storage.put_bytes(KEY, DATA)
    fill(full_data_dir, leave_bytes=256 * 1024)
    dest = full_data_dir / "work" / "copy.mp4"
    dest.parent.mkdir()
    with pytest.raises(DiskFullError, match=f"no space was left in {dest.parent} while copying"):
        backend.input_storage.get_file(KEY, dest)


def test_an_upload_to_a_full_disk_is_507_with_the_reason_and_no_temp_file(
        backend, full_data_dir):
    fill(full_data_dir, leave_bytes=256 * 1024)
    req = backend.input_storage.presign_put(KEY, max_bytes=len(DATA))
    with TestClient(storage_app(BackendSettings(data_dir=full_data_dir),
                                backend=backend)) as client:
        resp = client.put(path_of(req.url), content=DATA)
    assert resp.status_code == 507, resp.text
    assert "The disk is full" in resp.text and str(full_data_dir) in resp.text
    assert not backend.input_storage.exists(KEY)
    assert entries(full_data_dir / "tmp") == []
    assert backend.chunking_queue.stats().visible == 0  # no event for a missing object
