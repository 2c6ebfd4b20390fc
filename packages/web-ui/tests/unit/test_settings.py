import pytest
from pydantic import ValidationError

from web_ui.settings import GB, MB, WebSettings


def test_defaults_cap_uploads_at_20_gb_in_16_mb_parts():
    s = WebSettings(_env_file=None)
    assert s.max_upload_bytes == 20 * GB
    assert s.upload_part_bytes == 16 * MB
    assert s.eta_seconds_per_mb is None
    assert not s.basic_auth_enabled


@pytest.mark.parametrize("name", ["STEREO_SPOT_ETA_SECONDS_PER_MB", "ETA_SECONDS_PER_MB"])
def test_eta_rate_comes_from_either_env_name(monkeypatch, name):
    monkeypatch.setenv(name, "2.5")
    assert WebSettings().eta_seconds_per_mb == 2.5


def test_basic_auth_needs_both_user_and_password():
    assert not WebSettings(basic_auth_user="me").basic_auth_enabled
    assert WebSettings(basic_auth_user="me", basic_auth_password="pw").basic_auth_enabled


def test_nonsense_limits_are_rejected():
    with pytest.raises(ValidationError):
        WebSettings(max_upload_bytes=0)
