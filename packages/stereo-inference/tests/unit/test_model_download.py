import json

import pytest

from stereo_inference.errors import EngineTransientError, InvalidInputError
from stereo_inference.model_download import download_model


def test_download_snapshots_the_hub_repo_into_the_models_folder(tmp_path):
    calls = []

    def snapshot(*, repo_id, local_dir, allow_patterns):
        calls.append(repo_id)
        (tmp_path / "m" / "depth-anything-v2-small" / "config.json").write_text(json.dumps({}))
        return local_dir

    folder = download_model("depth-anything-v2-small", tmp_path / "m", snapshot=snapshot)
    assert folder == tmp_path / "m" / "depth-anything-v2-small"
    assert calls == ["depth-anything/Depth-Anything-V2-Small-hf"]


def test_unknown_models_are_refused(tmp_path):
    with pytest.raises(InvalidInputError, match="downloadable"):
        download_model("midas", tmp_path)


def test_a_failed_download_is_transient(tmp_path):
    def snapshot(**_):
        raise OSError("network unreachable")

    with pytest.raises(EngineTransientError, match="network unreachable"):
        download_model("depth-anything-v2-base", tmp_path, snapshot=snapshot)
