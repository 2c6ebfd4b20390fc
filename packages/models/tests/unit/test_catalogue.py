import pytest
from shared_types.errors import ModelDownloadError

from stereo_models.depth_models import CATALOG
from stereo_models.model_install import download_model


def test_video_depth_anything_is_catalogued_but_never_downloaded_unpinned(tmp_path):
    card = CATALOG["video-depth-anything-small"]
    assert card.licence == "Apache-2.0" and not card.pinned
    with pytest.raises(ModelDownloadError, match="pins no revision") as err:
        download_model(card.name, tmp_path)
    assert str(tmp_path / card.name) in str(err.value)
    assert not (tmp_path / card.name).exists()
