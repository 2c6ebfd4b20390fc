"""The warp plan in C (``_planes.plan_warp``) against its numpy reference."""

import numpy as np
import pytest

from stereo_inference import native
from stereo_inference.warp import plan_warp

pytestmark = pytest.mark.skipif(native.planes is None,
                                reason="the C extension was not built (no C compiler)")


def disparities(w: int) -> list[np.ndarray]:
    """Rows of every kind a plan meets: smooth, folded, torn, compressed (segments
    that hold no target), stretched to hold two to four targets, wholly off the
    row on either side, flat, exact halves."""
    rng = np.random.default_rng(w)
    x = np.arange(w, dtype=np.float32)
    objects = 5 + 3 * np.sin(x / 7) + 12 * ((x // 9) % 2) + rng.normal(0, 0.2, (6, 1))
    stretched = -x[None] * np.float32([[0.45], [0.8], [2.2]]) + rng.uniform(0, 1, (3, 1))
    return [a.astype(np.float32) for a in (
        rng.uniform(-4, 30, (8, w)),  # noise: folds and tears everywhere
        objects,
        stretched,
        x[None] * np.float32([[0.6], [0.9995], [0.995]]) + 0.3,  # compressed, nearly folded
        np.float32([[w + 5], [-w - 5], [7.25]]).repeat(w, 1),
        rng.choice(np.float32([0, 0.5, 1, 1.9, 2, 2.5, 10]), (6, w)),  # ties and limits
    )]


@pytest.mark.parametrize("max_stretch", [1.9, 3.5])
@pytest.mark.parametrize("fill", ["replicate", "mirror"])
@pytest.mark.parametrize("w", [2, 3, 40, 641])
def test_the_c_plan_is_the_numpy_plan_bit_for_bit(fill, w, max_stretch, monkeypatch):
    for d in disparities(w):
        c = plan_warp(d[None, None], fill=fill, max_stretch=max_stretch)
        with monkeypatch.context() as m:
            m.setattr(native, "planes", None)
            reference = plan_warp(d[None, None], fill=fill, max_stretch=max_stretch)
        np.testing.assert_array_equal(c, reference)


def test_the_c_plan_refuses_what_it_cannot_plan():
    d = np.zeros((2, 8), np.float32)
    with pytest.raises(TypeError, match="float32"):
        native.planes.plan_warp(d.astype(np.float64), np.empty_like(d), 1.9)
    with pytest.raises(ValueError, match="must be 2 x 8"):
        native.planes.plan_warp(d, np.empty((2, 7), np.float32), 1.9)
    with pytest.raises(ValueError, match="max_stretch"):
        native.planes.plan_warp(d, np.empty_like(d), float("nan"))
