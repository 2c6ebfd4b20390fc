import pytest

from web_ui.templating import build_templates, human_duration, iso_utc


def test_iso_utc():
    assert iso_utc(0) == "1970-01-01T00:00:00Z"
    assert iso_utc(None) == ""


@pytest.mark.parametrize(("seconds", "text"), [
    (None, ""), (4.4, "about 4 s"), (150, "about 2 min"), (3 * 3600 + 600, "about 3 h 10 min"),
])
def test_human_duration(seconds, text):
    assert human_duration(seconds) == text


def test_pages_write_byte_counts_in_the_shared_wording():
    size = build_templates().env.filters["size_words"]
    assert size(20 * 1024 ** 3) == "20.0 GB"
    assert size(500 * 1024 * 1024) == "500.0 MB"


def test_every_mode_and_codec_has_a_label():
    from shared_types.models import OutputMode, VideoCodec

    from web_ui.templating import CODEC_LABELS, MODE_LABELS

    assert set(MODE_LABELS) == set(OutputMode)
    assert set(CODEC_LABELS) == set(VideoCodec)
