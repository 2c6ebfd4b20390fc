import pytest
from pydantic import ValidationError

from web_ui.settings import MB, WebSettings


def test_defaults_match_the_single_put_limit():
    s = WebSettings(_env_file=None)
    assert s.max_upload_bytes == 500 * MB
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
