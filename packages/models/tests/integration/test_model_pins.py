"""The catalogue pins each model's revision and each file's SHA-256, and a
download is checked against those pins whatever endpoint served it (#52,
finding 9: the checksum came from the same endpoint as the file)."""

import re

import pytest
from shared_types.errors import ModelDownloadError, ModelUnavailableError

from stereo_models.depth_models import CATALOG, is_installed
from stereo_models.model_install import check_model_available, download_model
from stereo_models.testing.hub import COMMIT, FakeHub, serve_hub

SMALL = "depth-anything-v2-small"
UNPINNED = "distill-any-depth-large"
FILES = {"config.json": b'{"model_type": "depth_anything"}', "model.safetensors": b"w" * 4096}


def hub_of(name: str) -> FakeHub:
    return FakeHub(repos={CATALOG[name].repo: dict(FILES)})


def test_bytes_the_catalogue_does_not_pin_are_deleted_even_when_the_endpoint_vouches(tmp_path):
    """A mirror that serves other bytes, with its own matching ETags (the hub
    computes them from what it serves), installs nothing."""
    with serve_hub(hub_of(SMALL), pin=False) as hub:
        with pytest.raises(ModelDownloadError, match="does not match its pinned checksum"):
            download_model(SMALL, tmp_path, endpoint=hub.url)
    assert not is_installed(SMALL, tmp_path)
    assert not (tmp_path / SMALL).exists()
    assert not list(tmp_path.glob(".*.partial/config.json"))  # the mismatching file is gone
    pinned = CATALOG[SMALL].revision
    assert all(f"/resolve/{pinned}/" in path for method, path, _ in hub.requests
               if method == "GET")


def test_the_same_download_with_matching_pins_installs(tmp_path):  # the control
    with serve_hub(hub_of(SMALL)) as hub:
        download_model(SMALL, tmp_path, endpoint=hub.url)
    assert is_installed(SMALL, tmp_path)
    assert all(f"/resolve/{COMMIT}/" in path for method, path, _ in hub.requests
               if method == "GET")


def test_a_model_without_pins_is_never_downloaded(tmp_path):
    assert not CATALOG[UNPINNED].pinned
    with serve_hub(hub_of(UNPINNED), pin=False) as hub:
        with pytest.raises(ModelDownloadError, match="pins no revision"):
            download_model(UNPINNED, tmp_path, endpoint=hub.url)
        with pytest.raises(ModelUnavailableError):
            check_model_available(UNPINNED, tmp_path, auto_download=True, endpoint=hub.url)
    assert hub.requests == []
    with serve_hub(hub_of(UNPINNED)) as hub:  # the control: pinned, it is accepted
        check_model_available(UNPINNED, tmp_path, auto_download=True, endpoint=hub.url)


def test_every_pin_is_a_commit_and_sha256_digests():
    for card in CATALOG.values():
        if card.revision is not None:
            assert re.fullmatch(r"[0-9a-f]{40}", card.revision), card.name
        for filename, digest in card.sha256.items():
            assert re.fullmatch(r"[0-9a-f]{64}", digest), (card.name, filename)
    assert CATALOG[SMALL].pinned
