import numpy as np
import pytest
from shared_types.models import DynamicRange, OutputMode
from stereo_media.hdr import HdrInfo

from stereo_inference.tonemap import (
    SDR_COLOR,
    ToneMapper,
    dynamic_range_for,
    eetf,
    nits_to_pq,
    output_bit_depth,
    peak_nits,
    pq_to_nits,
    sdr_tone_mapper,
)

PQ_2020 = (9, 16, 9, 1)
HLG_2020 = (9, 18, 9, 1)
HDR10 = HdrInfo(bit_depth=10, master_display="G(1,2)B(3,4)R(5,6)WP(7,8)L(40000000,50)",
                max_cll="1000,400")


def grey_frame(code: int, w: int = 8, h: int = 4, chroma: tuple[int, int] = (512, 512)):
    frame = np.empty((h * 3 // 2, w), np.uint16)
    frame[:h] = code
    planes = frame[h:].reshape(2, h // 2, w // 2)
    planes[0], planes[1] = chroma
    return frame


def test_pq_round_trips_and_the_eetf_rolls_off_monotonically_to_sdr_white():
    nits = np.array([0.01, 1, 26, 100, 1000, 4000])
    assert np.allclose(pq_to_nits(nits_to_pq(nits)), nits, rtol=1e-6)
    ramp = np.linspace(0, 4000, 2000)
    mapped = eetf(ramp, 4000)
    assert np.all(np.diff(mapped) >= 0)
    assert mapped[-1] == pytest.approx(100)
    assert eetf(np.array(5.0), 4000) == pytest.approx(5.0)  # below the knee: untouched
    assert eetf(np.array(50.0), 80) == 50  # a master dimmer than SDR white is kept
    assert eetf(np.array(150.0), 80) == 100  # (and only limited)


def test_the_peak_comes_from_the_mastering_display_then_maxcll_then_1000():
    assert peak_nits(HDR10) == 4000
    assert peak_nits(HdrInfo(bit_depth=10, max_cll="600,200")) == 600
    assert peak_nits(HdrInfo(bit_depth=10)) == 1000


def test_a_neutral_pq_ramp_maps_to_rising_neutral_sdr_greys():
    mapper = ToneMapper(PQ_2020, HDR10)
    codes = [round(64 + 876 * float(nits_to_pq(n))) for n in (10, 100, 500, 1000, 3000)]
    out = [mapper(grey_frame(c)) for c in codes]
    luma = [int(o[0, 0]) for o in out]
    assert luma == sorted(set(luma)) and luma[-1] <= 235
    assert all(np.all(np.abs(o[4:].astype(int) - 128) <= 1) for o in out)  # still grey
    assert out[0].dtype == np.uint8 and out[0].shape == (6, 8)


def test_hlg_reference_white_lands_bright_but_below_sdr_white():
    mapper = ToneMapper(HLG_2020, HdrInfo(bit_depth=10))
    white = mapper(grey_frame(round(64 + 876 * 0.75)))  # BT.2408: 75 % HLG = 203 nits
    assert 200 <= int(white[0, 0]) < 235


def test_a_saturated_bt2020_green_is_clipped_into_bt709_not_wrapped():
    mapper = ToneMapper(PQ_2020, HDR10)
    green = mapper(grey_frame(500, chroma=(300, 300)))  # low Cb and Cr: green
    cb, cr = int(green[4, 0]), int(green[5, 0])
    assert cb < 128 and cr < 128  # still green after the primaries change
    assert 16 <= int(green[0, 0]) <= 235


def test_only_sdr_on_an_hdr_source_asks_for_tone_mapping():
    assert sdr_tone_mapper(PQ_2020, HDR10, DynamicRange.KEEP) is None
    assert sdr_tone_mapper((1, 1, 1, 1), HDR10, DynamicRange.SDR) is None
    assert sdr_tone_mapper(None, HDR10, DynamicRange.SDR) is None
    mapper = sdr_tone_mapper(HLG_2020, HDR10, DynamicRange.SDR)
    assert mapper is not None and mapper.output_color == SDR_COLOR
    assert dynamic_range_for(OutputMode.ANAGLYPH, DynamicRange.KEEP) is DynamicRange.SDR
    assert dynamic_range_for(OutputMode.TB, DynamicRange.KEEP) is DynamicRange.KEEP
    assert output_bit_depth(10, DynamicRange.SDR) == 8
    assert output_bit_depth(10, DynamicRange.KEEP) == 10
    with pytest.raises(ValueError):
        ToneMapper((1, 1, 1, 1), HDR10)


def test_full_resolution_luma_matches_the_per_pixel_operator_on_a_colourful_frame():
    """Luma detail comes from the neutral curve plus each block's colour correction:
    on a frame with fine luma detail under smoothly varying colour it stays within
    a code or two of running the whole operator on every pixel."""
    import cv2

    from stereo_inference.tonemap import _BT709_Y

    h, w = 64, 96
    rng = np.random.default_rng(1)
    _, xx = np.mgrid[0:h, 0:w]
    luma = 300 + 300 * xx / w + rng.integers(-20, 21, (h, w))  # a ramp with fine detail
    cy, cx = np.mgrid[0:h // 2, 0:w // 2]
    frame = np.empty((h * 3 // 2, w), np.uint16)
    frame[:h] = luma
    frame[h:].reshape(2, h // 2, w // 2)[0] = 512 + 60 * np.sin(cx / 9)
    frame[h:].reshape(2, h // 2, w // 2)[1] = 512 + 60 * np.cos(cy / 7)
    mapper = ToneMapper(PQ_2020, HDR10)
    fast = mapper(frame)[:h].astype(float)
    chroma = frame[h:].reshape(2, h // 2, w // 2).astype(np.float32)
    full = [cv2.resize(c, (w, h), interpolation=cv2.INTER_NEAREST) for c in chroma]
    ycc = cv2.merge([frame[:h].astype(np.float32), *full])
    exact = cv2.transform(mapper._bt709_rgb(ycc), _BT709_Y).reshape(h, w)
    error = np.abs(fast - np.clip(np.rint(exact), 0, 255))
    assert error.mean() < 1.5 and np.percentile(error, 99) <= 6, (error.mean(), error.max())
