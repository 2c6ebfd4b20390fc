import pytest
import torch
from shared_types.models import AnaglyphMethod, OutputMode

from stereo_inference.errors import InvalidInputError
from stereo_inference.formats import anaglyph, eye_size, output_size, pack, parse_mode


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (OutputMode.SBS, (320, 96)),
        (OutputMode.HALF_SBS, (160, 96)),
        (OutputMode.TB, (160, 192)),
        (OutputMode.HALF_TB, (160, 96)),
        (OutputMode.ANAGLYPH, (160, 96)),
    ],
)
def test_each_mode_has_its_output_geometry(mode, expected):
    assert output_size(mode, 160, 96) == expected


def test_odd_sources_give_even_dimensions():
    for mode in OutputMode:
        w, h = output_size(mode, 161, 97)
        assert w % 2 == 0 and h % 2 == 0
    assert eye_size(OutputMode.HALF_SBS, 161, 97) == (80, 96)


def test_pack_places_left_first():
    left, right = torch.zeros(1, 1, 2, 2), torch.ones(1, 1, 2, 2)
    sbs = pack(OutputMode.SBS, left, right)
    assert sbs.shape == (1, 1, 2, 4) and sbs[..., 2:].min() == 1 and sbs[..., :2].max() == 0
    tb = pack(OutputMode.TB, left, right)
    assert tb.shape == (1, 1, 4, 2) and tb[..., 2:, :].min() == 1


@pytest.mark.parametrize("method", list(AnaglyphMethod))
def test_anaglyph_puts_the_left_eye_in_red_and_the_right_eye_in_cyan(method):
    white, black = torch.ones(1, 3, 2, 2), torch.zeros(1, 3, 2, 2)
    left_only = anaglyph(white, black, method)
    right_only = anaglyph(black, white, method)
    assert left_only[:, 0].mean() > 0.4  # red shows the left eye
    assert left_only[:, 1:].max() < 0.05  # nothing of it in green/blue
    assert right_only[:, 1:].mean() > 0.4  # cyan shows the right eye
    assert right_only[:, 0].max() < 0.05


def test_unknown_mode_is_a_clear_error():
    with pytest.raises(InvalidInputError, match="unknown output mode 'vr180'"):
        parse_mode("vr180")
