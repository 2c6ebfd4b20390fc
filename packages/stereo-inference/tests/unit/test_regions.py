"""regions: OpenCV's Lab tables are built once a process, ahead of the first frame."""

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from stereo_inference.depth import regions


def _in_a_fresh_process(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_prepare_pays_the_default_depths_one_time_costs_and_a_learned_models_nothing():
    _in_a_fresh_process(
        "import sys\n"
        "from stereo_inference.depth import prepare, regions\n"
        "prepare('depth-anything-v2-small')\n"
        "assert not regions._tables_built\n"
        "assert 'stereo_inference.depth.heuristic' not in sys.modules\n"
        "prepare('heuristic')\n"
        "assert regions._tables_built\n"
        "assert 'stereo_inference.depth.heuristic' in sys.modules\n")


def test_a_heuristic_estimator_builds_the_tables_in_the_background_as_it_is_made():
    _in_a_fresh_process(
        "import threading\n"
        "from stereo_inference.depth import load_estimator, regions\n"
        "assert not regions._tables_built\n"
        "load_estimator('heuristic', models_dir=None, device='cpu')\n"
        "builders = [t for t in threading.enumerate() if t.name == 'lab-tables']\n"
        "assert builders or regions._tables_built\n"
        "for t in builders:\n"
        "    t.join(60)\n"
        "assert regions._tables_built\n")


def test_regions_found_while_another_thread_builds_the_tables_match_a_serial_run(monkeypatch):
    rng = np.random.default_rng(3)
    frames = [rng.random((72, 128, 3), dtype=np.float32) for _ in range(6)]
    expected = [regions.segment(f) for f in frames]
    monkeypatch.setattr(regions, "_tables_built", False)
    regions.build_tables_soon()
    with ThreadPoolExecutor(3) as pool:
        found = list(pool.map(regions.segment, frames))
    assert regions._tables_built
    for want, got in zip(expected, found, strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.timeout(60)  # the bug was a loop that never ended
@pytest.mark.parametrize("shape", [(8, 2), (2, 8), (1, 1), (8, 5)])
def test_a_frame_smaller_than_a_superpixel_cell_is_one_region(shape):
    rgb = np.random.default_rng(0).random((*shape, 3), dtype=np.float32)
    labels = regions.segment(rgb)
    assert labels.shape == shape
    assert labels.min() == 0 and labels.max() == 0
