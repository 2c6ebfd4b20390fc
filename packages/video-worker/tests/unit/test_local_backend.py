from dataclasses import dataclass
from pathlib import Path

import pytest
from shared_types.errors import ObjectNotFoundError
from shared_types.keys import parse_segment_key, segment_key
from shared_types.models import ConversionParams, OutputMode
from shared_types.testing.memory import MemoryStorage
from stereo_inference.errors import EngineTransientError, InvalidInputError

from video_worker.local_backend import LocalInferenceBackend

KEY = segment_key("job-1", 1, 2, OutputMode.TB)
OUT = "jobs/job-1/segments/1.mp4"


@dataclass
class Result:
    frames: int
    duration_s: float
    elapsed_s: float
    fps: float
    depth_model: str


class FakeEngine:
    """Stands in for stereo_inference.convert_file (same signature)."""

    def __init__(self, error=None):
        self.error, self.calls = error, []

    def __call__(self, input_path, output_path, *, mode, params, progress=None,
                 depth_state=None, models_dir=None, ffmpeg=None):
        self.calls.append(dict(input=Path(input_path).read_bytes(), mode=mode, params=params,
                               models_dir=models_dir, ffmpeg=ffmpeg))
        if self.error:
            raise self.error
        Path(output_path).write_bytes(b"3d:" + Path(input_path).read_bytes())
        return Result(frames=48, duration_s=2.0, elapsed_s=1.0, fps=48.0,
                      depth_model="heuristic")


def make(engine, tmp_path):
    inp, out = MemoryStorage("input"), MemoryStorage("output")
    inp.put_bytes(KEY, b"segment-bytes")
    backend = LocalInferenceBackend(inp, out, convert_file=engine, models_dir=tmp_path / "m",
                                    ffmpeg="/bin/ffmpeg", work_dir=tmp_path / "work")
    return backend, inp, out


def test_downloads_converts_and_uploads_to_the_output_key(tmp_path):
    engine = FakeEngine()
    backend, _, out = make(engine, tmp_path)
    result = backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams(crf=30))
    assert out.get_bytes(OUT) == b"3d:segment-bytes"
    call = engine.calls[0]
    assert call["input"] == b"segment-bytes" and call["mode"] == OutputMode.TB
    assert call["params"].crf == 30 and call["ffmpeg"] == "/bin/ffmpeg"
    assert (result.frames, result.fps, result.depth_model) == (48, 48.0, "heuristic")
    assert list((tmp_path / "work").iterdir()) == []  # temp files are cleaned up


@pytest.mark.parametrize("error", [InvalidInputError("corrupt"), EngineTransientError("oom")])
def test_engine_errors_propagate_unchanged_and_nothing_is_uploaded(tmp_path, error):
    backend, _, out = make(FakeEngine(error), tmp_path)
    with pytest.raises(type(error)):
        backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams())
    assert not out.exists(OUT)


def test_a_missing_segment_is_reported(tmp_path):
    backend, inp, _ = make(FakeEngine(), tmp_path)
    inp.delete(KEY)
    with pytest.raises(ObjectNotFoundError):
        backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams())
