import math

import pytest
from shared_types.models import ConversionParams

from stereo_inference.viewing import PRESETS, Viewing, fitted_strength, limits, viewing_of


def test_far_limit_is_the_ipd_on_screen_in_eye_pixels():
    v = Viewing(width_m=1.26, distance_m=3.0)  # 63 mm = 5 % of the width
    assert limits(v, 1920).far_px == pytest.approx(96.0)
    assert limits(v, 960).far_px == pytest.approx(48.0)  # a half layout's eye


def test_the_one_degree_rule_moves_vergence_one_degree_either_way():
    v = Viewing(width_m=1.44, distance_m=3.0)
    lim = limits(v, 1920)
    assert v.degrees(lim.near_px, 1920) == pytest.approx(1.0, abs=1e-6)
    assert v.degrees(-lim.zone_far_px, 1920) == pytest.approx(-1.0, abs=1e-6)
    assert lim.zone_far_px < lim.far_px  # at 3 m the rule binds before the IPD


def test_close_screens_get_smaller_pixel_limits_per_metre_of_width():
    laptop = limits(viewing_of(ConversionParams(viewing="laptop")), 1920)
    tv = limits(viewing_of(ConversionParams(viewing="tv-65")), 1920)
    # 1 degree at 60 cm is ~1 cm on the laptop's 34 cm screen, ~5 cm on the TV's 1.44 m
    assert laptop.near_px == pytest.approx(0.0105 / 0.3454 * 1920, rel=0.03)
    assert tv.near_px == pytest.approx(0.0524 / 1.4391 * 1920, rel=0.03)


def test_every_preset_has_a_size_and_custom_uses_the_given_one():
    assert set(PRESETS) | {"custom"} == {p.value for p in type(next(iter(PRESETS)))}
    custom = viewing_of(ConversionParams(viewing="custom", screen_width_m=2.0,
                                         viewing_distance_m=4.0, viewer_ipd_mm=70))
    assert (custom.width_m, custom.distance_m, custom.ipd_m) == (2.0, 4.0, 0.07)
    assert viewing_of(ConversionParams()) is None


def test_fitted_strength_spans_the_zone_and_respects_the_engine_cap():
    lim = limits(Viewing(1.44, 3.0), 1920)
    div, conv = fitted_strength(lim, 1920, 10.0)
    total = div / 100 * 1920
    assert conv * total == pytest.approx(lim.near_px)
    assert (1 - conv) * total == pytest.approx(lim.zone_far_px)
    capped, _ = fitted_strength(lim, 1920, 1.0)
    assert capped == 1.0
    assert math.isfinite(conv)
