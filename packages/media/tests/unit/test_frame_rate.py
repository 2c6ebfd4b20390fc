from fractions import Fraction
from types import SimpleNamespace

from stereo_media.frame_rate import stream_rate


def test_the_lower_of_the_two_known_rates():
    rate = stream_rate
    assert rate(SimpleNamespace(average_rate=Fraction(25), guessed_rate=Fraction(25))) == 25
    # DV's demuxer says its time base as the average
    assert rate(SimpleNamespace(average_rate=Fraction(60000), guessed_rate=Fraction(25))) == 25
    # a variable-rate file: the average is below the rate its timestamps need
    assert rate(SimpleNamespace(average_rate=Fraction(45), guessed_rate=Fraction(60))) == 45
    assert rate(SimpleNamespace(average_rate=None, guessed_rate=Fraction(30000, 1001))) == \
        Fraction(30000, 1001)
    assert rate(SimpleNamespace(average_rate=None, guessed_rate=None)) is None
