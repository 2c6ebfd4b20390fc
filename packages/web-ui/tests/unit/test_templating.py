import pytest

from web_ui.templating import human_duration, human_size, iso_utc


def test_iso_utc():
    assert iso_utc(0) == "1970-01-01T00:00:00Z"
    assert iso_utc(None) == ""


@pytest.mark.parametrize(("seconds", "text"), [
    (None, ""), (4.4, "about 4 s"), (150, "about 2 min"), (3 * 3600 + 600, "about 3 h 10 min"),
])
def test_human_duration(seconds, text):
    assert human_duration(seconds) == text


def test_human_size():
    assert human_size(500 * 1024 * 1024) == "500.0 MB"
    assert human_size(1000) == "1.0 KB"
