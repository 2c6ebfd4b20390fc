import pytest

from stereo_inference import native


@pytest.fixture(params=["c", "opencv"])
def cpu_loops(request, monkeypatch):
    """The test runs with the engine's C extension and again with OpenCV alone
    (what an install without a C compiler runs)."""
    if request.param == "opencv":
        monkeypatch.setattr(native, "planes", None)
    elif native.planes is None:
        pytest.skip("the C extension was not built (no C compiler)")
    return request.param


def blurred_noise(h: int, w: int, seed: int):
    """(h, w) float32 texture: uniform noise blurred (sigma 1.2), seeded."""
    import cv2
    import numpy as np

    noise = np.random.default_rng(seed).random((h, w)).astype(np.float32)
    return cv2.GaussianBlur(noise, (0, 0), 1.2)


@pytest.fixture
def texture():
    """``blurred_noise``: a texture the flow can hold on to."""
    return blurred_noise


@pytest.fixture
def still_walls():
    """``walls(frames) -> (frames (N,3,72,128) tensor, untouched (72,128) bool)``:
    a still camera on plain walls (flat vertical bands, nothing for the flow to
    hold on to) while three small textured squares cross them, and the pixels
    whose whole 9x9 neighbourhood never changes."""
    import cv2
    import numpy as np
    import torch

    def walls(count: int):
        h, w = 72, 128
        levels = np.repeat(np.array([0.3, 0.55, 0.8, 0.15, 0.45, 0.7, 0.25, 0.6],
                                    np.float32), 16)
        square = blurred_noise(14, 14, 3) * 0.8 + 0.1
        out = []
        for i in range(count):
            frame = np.repeat(levels[None, :w], h, 0)
            for k, (y, step) in enumerate(((10, 3), (30, -2), (50, 2))):
                x = (20 + 37 * k + step * i) % (w - 20)
                frame[y:y + 14, x:x + 14] = square
            out.append(np.repeat(frame[None], 3, 0))
        frames = np.stack(out)
        still = (np.abs(np.diff(frames.mean(1), axis=0)) == 0).all(0).astype(np.uint8)
        return torch.from_numpy(frames), cv2.erode(still, np.ones((9, 9), np.uint8)) > 0

    return walls
