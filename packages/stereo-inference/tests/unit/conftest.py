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
