import sys
import types

import pytest

from shared_types.backend_loader import load_backend, receive_wait_s
from shared_types.errors import AdapterMissingError, PermanentError
from shared_types.settings import BackendSettings


def fake_adapters(monkeypatch, name):
    built = []
    module = types.ModuleType(name)
    module.build_backend = lambda settings: built.append(settings) or f"{name} backend"
    monkeypatch.setitem(sys.modules, name, module)
    return built


@pytest.mark.parametrize(("backend", "package"), [("local", "local_adapters"),
                                                  ("aws", "aws_adapters")])
def test_the_settings_name_the_adapter_package_that_builds_the_backend(
        monkeypatch, backend, package):
    built = fake_adapters(monkeypatch, package)
    settings = BackendSettings(backend=backend)
    assert load_backend(settings) == f"{package} backend"
    assert built == [settings]


def test_a_missing_adapter_package_is_a_permanent_error_naming_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "aws_adapters", None)  # import raises ImportError
    with pytest.raises(AdapterMissingError, match="aws_adapters") as caught:
        load_backend(BackendSettings(backend="aws"))
    assert isinstance(caught.value, PermanentError)


def test_every_backend_long_polls_for_the_configured_wait():
    # a local wait no longer needs to be short to notice a drain: stop ends it
    assert receive_wait_s(BackendSettings(backend="local", sqs_wait_s=20)) == 20
    assert receive_wait_s(BackendSettings(backend="local", sqs_wait_s=0.05)) == 0.05
    assert receive_wait_s(BackendSettings(backend="aws", sqs_wait_s=20)) == 20
