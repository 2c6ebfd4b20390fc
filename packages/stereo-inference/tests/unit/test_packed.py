import json

import numpy as np

from stereo_inference.packed import pack, unpack


def test_a_small_map_round_trips_exactly_through_json():
    plane = np.random.default_rng(0).random((72, 128)).astype(np.float16)
    back = unpack(json.loads(json.dumps(pack(plane))), np.float16)
    assert back.dtype == np.float16
    np.testing.assert_array_equal(back, plane)


def test_a_wide_map_travels_shrunk_and_comes_back_at_its_size():
    y, x = np.mgrid[0:294, 0:518]
    plane = (x / 518 + y / 294).astype(np.float16)  # smooth, like depth
    data = pack(plane)
    assert len(json.dumps(data)) < 40_000  # not the 400 kB of the whole map
    back = unpack(json.loads(json.dumps(data)), np.float16)
    assert back.shape == (294, 518)
    assert float(np.abs(back.astype(np.float32) - plane).max()) < 0.02


def test_malformed_data_gives_none():
    assert unpack(None, np.uint8) is None
    assert unpack({"shape": [2, 2], "data": "not base64!"}, np.uint8) is None
    assert unpack({"shape": [2, 2], "data": "AAAA"}, np.uint8) is None
