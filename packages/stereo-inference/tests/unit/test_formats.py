import pytest
import torch
from shared_types.models import OutputMode

from stereo_inference.errors import InvalidInputError
from stereo_inference.formats import (
    decoded_size,
    eye_size,
    output_size,
    pack,
    packed_size,
    parse_mode,
)


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


@pytest.mark.parametrize(
    ("source", "mode", "output", "eye"),
    [
        ((854, 480), OutputMode.HALF_SBS, (854, 480), (428, 480)),  # odd half: 427
        ((854, 480), OutputMode.SBS, (1708, 480), (854, 480)),
        ((854, 480), OutputMode.HALF_TB, (854, 480), (854, 240)),
        ((854, 480), OutputMode.TB, (854, 960), (854, 480)),
        ((854, 482), OutputMode.HALF_TB, (854, 482), (854, 242)),  # odd half: 241
        ((480, 854), OutputMode.HALF_SBS, (480, 854), (240, 854)),  # portrait
        ((1920, 1080), OutputMode.HALF_SBS, (1920, 1080), (960, 1080)),
        ((1280, 720), OutputMode.ANAGLYPH, (1280, 720), (1280, 720)),
        ((161, 97), OutputMode.HALF_SBS, (162, 98), (82, 98)),  # odd source: even for 4:2:0
        ((161, 97), OutputMode.SBS, (324, 98), (162, 98)),
    ],
)
def test_output_keeps_the_source_geometry_exactly(source, mode, output, eye):
    assert output_size(mode, *source) == output
    assert eye_size(mode, *source) == eye
    pw, ph = packed_size(mode, *source)
    # the rendered eyes pack to the output size, or within one pixel a side of it
    assert abs(pw - output[0]) <= 2
    assert abs(ph - output[1]) <= 2


@pytest.mark.parametrize(("source", "decoded"), [
    ((854, 480), (854, 480)), ((853, 479), (854, 480)), ((1, 1), (2, 2)),
])
def test_frames_are_decoded_at_the_source_size_rounded_up_to_even(source, decoded):
    assert decoded_size(*source) == decoded


def test_pack_places_left_first():
    left, right = torch.zeros(1, 1, 2, 2), torch.ones(1, 1, 2, 2)
    sbs = pack(OutputMode.SBS, left, right)
    assert sbs.shape == (1, 1, 2, 4)
    assert sbs[..., 2:].min() == 1
    assert sbs[..., :2].max() == 0
    tb = pack(OutputMode.TB, left, right)
    assert tb.shape == (1, 1, 4, 2)
    assert tb[..., 2:, :].min() == 1


def test_unknown_mode_is_a_clear_error():
    with pytest.raises(InvalidInputError, match="unknown output mode 'hologram'"):
        parse_mode("hologram")
