import pytest
from shared_types.errors import ModelUnavailableError

from stereo_models.depth_models import CATALOG
from stereo_models.model_install import download_model


def test_a_model_whose_hub_files_need_converting_is_refused_with_where_to_install_it(tmp_path):
    card = CATALOG["video-depth-anything-small"]
    assert card.licence == "Apache-2.0" and not card.downloadable
    with pytest.raises(ModelUnavailableError, match="original checkpoint") as err:
        download_model(card.name, tmp_path)
    assert str(tmp_path / card.name) in str(err.value)
    assert not (tmp_path / card.name).exists()
