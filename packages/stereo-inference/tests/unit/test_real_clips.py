"""The real video clips of ``bench/depth_clips.py``: timestamp pairing, the depth
encoding, a clip's round trip, the committed clips' units and their split."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[4] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import depth_clips  # noqa: E402  (bench/, put on the path above)
import real_clips  # noqa: E402


def test_each_colour_frame_takes_the_depth_frame_nearest_in_time():
    colour = [0.000, 0.033, 0.067, 0.100, 0.500]
    depth = [0.010, 0.030, 0.071, 0.120]
    # 0.500 has nothing within 20 ms; 0.100 is 20 ms from 0.120 (kept at the limit)
    assert real_clips.associate(colour, depth) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert real_clips.associate(colour, depth, max_dt=0.015) == [(0, 0), (1, 1), (2, 2)]


def test_a_depth_frame_goes_to_the_closest_colour_frame_only():
    # both colour frames are nearest to depth 0.050; the closer one (0.045) gets it,
    # the other falls back to its next nearest within reach
    pairs = real_clips.associate([0.030, 0.045], [0.050, 0.038], max_dt=0.02)
    assert pairs == [(0, 1), (1, 0)]
    assert real_clips.associate([0.030, 0.045], [0.050], max_dt=0.02) == [(1, 0)]
    assert real_clips.associate([], [0.1]) == []


def test_depth_is_stored_in_millimetres_with_zero_for_unmeasured():
    metres = np.array([[1.2345, np.nan, 0.0], [-1.0, 0.0002, 65.535]])
    mm = real_clips.encode_depth(metres)
    assert mm.dtype == np.uint16
    assert mm.tolist() == [[1234, 0, 0], [0, 1, 65535]]  # 1.2345 m rounds to 1234 mm
    back = real_clips.decode_depth(mm)
    assert back[0, 0] == pytest.approx(1.234)
    assert np.isnan(back[0, 1]) and np.isnan(back[1, 0])
    with pytest.raises(ValueError, match="65.535 m"):
        real_clips.encode_depth(np.array([70.0]))
    with pytest.raises(ValueError, match="16-bit"):
        real_clips.decode_depth(np.zeros((2, 2), np.uint8))


def test_a_clip_written_reads_back(tmp_path):
    rng = np.random.default_rng(1)
    rgb = rng.integers(0, 256, (3, 12, 16, 3), dtype=np.uint8)
    depth = rng.uniform(0.5, 4.0, (3, 12, 16))
    depth[:, 0, 0] = np.nan
    real_clips.write_clip(tmp_path / "c", rgb, depth, {"source": "test"})
    assert real_clips.clips(tmp_path) == ["c"]
    got_rgb, got_depth = real_clips.load_clip("c", tmp_path)
    assert np.array_equal(got_rgb, rgb)  # PNG colour, RGB order kept
    assert np.isnan(got_depth[:, 0, 0]).all()
    assert np.allclose(got_depth[:, 1:], depth[:, 1:], atol=0.0005)
    assert real_clips.clip_info("c", tmp_path) == {"source": "test"}


def test_a_broken_clip_is_refused_with_a_reason(tmp_path):
    with pytest.raises(FileNotFoundError, match="'nope'.*clips there: none"):
        real_clips.load_clip("nope", tmp_path)
    with pytest.raises(ValueError, match="differ in size"):
        real_clips.write_clip(tmp_path / "c", np.zeros((1, 4, 4, 3), np.uint8),
                              np.ones((1, 4, 5)), {})
    real_clips.write_clip(tmp_path / "d", np.zeros((2, 4, 4, 3), np.uint8), np.ones((2, 4, 4)), {})
    (tmp_path / "d" / "depth" / "001.png").unlink()
    with pytest.raises(ValueError, match="do not pair up"):
        real_clips.load_clip("d", tmp_path)
    cv2.imwrite(str(tmp_path / "d" / "depth" / "001.png"), np.ones((4, 4), np.uint8))
    with pytest.raises(ValueError, match="16-bit"):
        real_clips.load_clip("d", tmp_path)


def test_the_committed_clips_hold_indoor_depth_in_metres():
    names = real_clips.clips()
    assert len(names) >= 6
    rgb, depth = real_clips.load_clip("redkitchen-still")
    assert rgb.shape[:3] == depth.shape and rgb.shape[2] >= 320
    measured = depth[np.isfinite(depth)]
    assert 0.5 < measured.size / depth.size
    assert 0.3 < np.percentile(measured, 1) and np.percentile(measured, 99) < 10  # a room


def test_the_committed_street_clips_hold_sparse_lidar_depth_rising_to_the_horizon():
    rgb, depth = real_clips.load_clip("kitti-dolly")
    assert rgb.shape[:3] == depth.shape and rgb.shape[2] >= 600
    measured = np.isfinite(depth)
    assert 0.05 < measured.mean() < 0.3  # lidar: scan lines, the lower part of the frame
    assert not measured[:, : depth.shape[1] // 5].any()  # nothing in the sky
    assert 20 < np.nanpercentile(depth, 99) < 65.6  # a street, in metres
    centre = depth[:, :, depth.shape[2] * 2 // 5: depth.shape[2] * 3 // 5]
    bottom = np.nanmedian(centre[:, -10:])
    assert bottom < 8 and bottom < np.nanmedian(centre[:, -60:-50])  # farther up the frame


def test_every_clip_has_one_split_and_held_out_clips_need_asking():
    names = real_clips.clips()
    assert not set(depth_clips.TUNING) & set(depth_clips.HELD_OUT)
    assert set(names) == set(depth_clips.TUNING) | set(depth_clips.HELD_OUT)
    assert set(depth_clips.chosen(None, held_out=False)) == set(depth_clips.TUNING)
    assert set(depth_clips.chosen(None, held_out=True)) == set(names)
    with pytest.raises(ValueError, match="no split"):
        depth_clips.chosen(["unknown-clip"], held_out=True)
