"""``serve`` beyond loopback: a login and a Host check (#52, finding 8)."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from local_stack.errors import ExposureError
from local_stack.exposure import expose, is_loopback
from local_stack.services import settings_env, web_settings
from local_stack.settings import StackSettings


def settings(**values) -> StackSettings:
    return StackSettings(_env_file=None, **values)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_on_loopback_nothing_changes(host):
    given = settings(host=host)
    exposure = expose(given, make_password=lambda: pytest.fail("no password on loopback"))
    assert exposure.settings == given and exposure.new_password is None
    assert is_loopback(host)


def test_beyond_loopback_a_password_is_made_and_the_names_are_checked():
    exposure = expose(settings(host="0.0.0.0", allowed_hosts=["stereo.lan"],
                               public_base_url="http://0.0.0.0:8000"),
                      make_password=lambda: "fresh-password")
    assert exposure.new_password == "fresh-password"
    served = exposure.settings
    assert served.basic_auth_password.get_secret_value() == "fresh-password"
    assert served.allowed_hosts == ["stereo.lan", "localhost", "127.0.0.1", "[::1]"]
    env = settings_env(web_settings(served))  # what web-ui reads
    assert env["STEREO_SPOT_BASIC_AUTH_PASSWORD"] == "fresh-password"
    assert env["STEREO_SPOT_BASIC_AUTH_USER"] == "stereo-spot"
    assert "0.0.0.0" not in env["STEREO_SPOT_ALLOWED_HOSTS"]


def test_a_configured_password_is_kept_and_the_bound_address_is_a_name():
    exposure = expose(settings(host="192.168.1.20", basic_auth_password=SecretStr("chosen-pw"),
                               public_base_url="http://192.168.1.20:8000"))
    assert exposure.new_password is None
    assert exposure.settings.basic_auth_password.get_secret_value() == "chosen-pw"
    assert exposure.settings.allowed_hosts[0] == "192.168.1.20"


def test_a_wildcard_bind_with_no_name_is_refused():
    with pytest.raises(ExposureError, match="--allowed-host"):
        expose(settings(host="0.0.0.0", public_base_url="http://0.0.0.0:8000"))
    with pytest.raises(ExposureError):
        expose(settings(host="::", public_base_url="http://[::]:8000"))


def test_on_loopback_the_children_get_no_login():  # the control: local use stays as it was
    env = settings_env(web_settings(expose(settings(host="127.0.0.1")).settings))
    assert "STEREO_SPOT_BASIC_AUTH_PASSWORD" not in env
