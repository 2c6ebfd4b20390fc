from pathlib import Path

import pytest
from shared_types.conversion import ConversionResult, EngineRuntime
from shared_types.errors import ObjectNotFoundError
from shared_types.keys import parse_segment_key, segment_key
from shared_types.models import ConversionParams, DepthModel, OutputMode
from shared_types.testing.memory import MemoryStorage
from stereo_inference.errors import EngineTransientError, InvalidInputError

from video_worker.local_backend import LocalInferenceBackend

KEY = segment_key("job-1", 1, 2, OutputMode.TB)
PREVIOUS = segment_key("job-1", 0, 2, OutputMode.TB)
OUT = "jobs/job-1/segments/1.mp4"


PLAIN = EngineRuntime()


class FakeEngine:
    """Stands in for stereo_inference.convert_file (same signature)."""

    def __init__(self, error=None):
        self.error, self.calls = error, []

    def __call__(self, input_path, output_path, *, mode, params, progress=None,
                 depth_state=None, context_path=None, depth_video=None,
                 runtime=PLAIN):
        context = Path(context_path).read_bytes() if context_path else None
        depth = Path(depth_video).read_bytes() if depth_video else None
        self.calls.append(dict(input=Path(input_path).read_bytes(), mode=mode, params=params,
                               models_dir=runtime.models_dir, ffmpeg=runtime.ffmpeg,
                               context=context, state=depth_state, cores=runtime.cores,
                               depth_stride=runtime.depth_stride, depth=depth))
        if self.error:
            raise self.error
        Path(output_path).write_bytes(b"3d:" + Path(input_path).read_bytes())
        return ConversionResult(frames=48, duration_s=2.0, width=64, height=32, elapsed_s=1.0,
                                fps=48.0, depth_model="heuristic",
                                depth_state={"after": Path(input_path).read_bytes().decode()})


def make(engine, tmp_path, seamless=True, **runtime):
    inp, out = MemoryStorage("input"), MemoryStorage("output")
    inp.put_bytes(KEY, b"segment-bytes")
    inp.put_bytes(PREVIOUS, b"previous-bytes")
    backend = LocalInferenceBackend(
        inp, out, convert_file=engine, work_dir=tmp_path / "work", seamless=seamless,
        runtime=EngineRuntime(models_dir=tmp_path / "m", ffmpeg="/bin/ffmpeg", **runtime))
    return backend, inp, out


def test_downloads_converts_and_uploads_to_the_output_key(tmp_path):
    engine = FakeEngine()
    backend, _, out = make(engine, tmp_path)
    result = backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams(crf=30))
    assert out.get_bytes(OUT) == b"3d:segment-bytes"
    call = engine.calls[0]
    assert call["input"] == b"segment-bytes"
    assert call["mode"] == OutputMode.TB
    assert call["params"].crf == 30
    assert call["ffmpeg"] == "/bin/ffmpeg"
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


def test_the_previous_segment_is_passed_as_the_engines_context(tmp_path):
    engine = FakeEngine()
    backend, _, _ = make(engine, tmp_path)
    backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams())
    assert engine.calls[0]["context"] == b"previous-bytes"
    assert list((tmp_path / "work").iterdir()) == []


def test_the_first_segment_has_no_context(tmp_path):
    engine = FakeEngine()
    backend, _, out = make(engine, tmp_path)
    backend.convert(parse_segment_key("input", PREVIOUS), "jobs/job-1/segments/0.mp4",
                    ConversionParams())
    assert engine.calls[0]["context"] is None
    assert out.get_bytes("jobs/job-1/segments/0.mp4") == b"3d:previous-bytes"


@pytest.mark.parametrize(("seamless", "params"), [
    (False, ConversionParams()),
    (True, ConversionParams(depth_model=DepthModel.IW3)),  # iw3 keeps no depth state
])
def test_no_context_when_seamless_is_off_or_useless(tmp_path, seamless, params):
    engine = FakeEngine()
    backend, _, _ = make(engine, tmp_path, seamless=seamless)
    backend.convert(parse_segment_key("input", KEY), OUT, params)
    assert engine.calls[0]["context"] is None


def test_a_vanished_previous_segment_only_loses_the_context(tmp_path):
    engine = FakeEngine()
    backend, inp, out = make(engine, tmp_path)
    inp.delete(PREVIOUS)
    backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams())
    assert engine.calls[0]["context"] is None
    assert out.exists(OUT)


def test_a_segment_this_process_converted_hands_its_depth_state_to_the_next(tmp_path):
    engine = FakeEngine()
    backend, _, out = make(engine, tmp_path)
    backend.convert(parse_segment_key("input", PREVIOUS), "jobs/job-1/segments/0.mp4",
                    ConversionParams())
    backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams())
    # the sequential state, and no download or re-decoding of the previous segment
    assert engine.calls[1]["state"] == {"after": "previous-bytes"}
    assert engine.calls[1]["context"] is None
    assert out.exists(OUT)
    # a retry of the same segment (state already used) falls back to the context
    backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams())
    assert engine.calls[2]["state"] is None
    assert engine.calls[2]["context"] == b"previous-bytes"


def test_no_state_is_carried_when_seamless_is_off(tmp_path):
    engine = FakeEngine()
    backend, _, _ = make(engine, tmp_path, seamless=False)
    backend.convert(parse_segment_key("input", PREVIOUS), "jobs/job-1/segments/0.mp4",
                    ConversionParams())
    backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams())
    assert engine.calls[1]["state"] is None
    assert engine.calls[1]["context"] is None


def test_warm_up_imports_the_engine_and_the_default_depth_in_the_background(tmp_path):
    import subprocess
    import sys

    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "from shared_types.testing.memory import MemoryStorage\n"
        "from video_worker.local_backend import LocalInferenceBackend\n"
        "from shared_types.conversion import EngineRuntime\n"
        "assert 'stereo_inference.depth.heuristic' not in sys.modules\n"
        "LocalInferenceBackend(MemoryStorage('i'), MemoryStorage('o'),\n"
        f"                      runtime=EngineRuntime(models_dir=Path({str(tmp_path)!r})))"
        ".warm_up().join(600)\n"
        # no models installed in tmp_path: the heuristic is the default
        "assert 'stereo_inference.depth.heuristic' in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr.decode()[-2000:]


def test_the_core_budget_reaches_every_conversion(tmp_path):
    engine = FakeEngine()
    backend, _, _ = make(engine, tmp_path, cores=1)
    backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams())
    assert engine.calls[0]["cores"] == 1


def test_the_depth_stride_reaches_every_conversion(tmp_path):
    engine = FakeEngine()
    backend, _, _ = make(engine, tmp_path, depth_stride=3)
    backend.convert(parse_segment_key("input", KEY), OUT, ConversionParams())
    assert engine.calls[0]["depth_stride"] == 3


def test_a_job_with_an_imported_depth_video_converts_with_it(tmp_path):
    from shared_types.keys import depth_video_key

    engine = FakeEngine()
    backend, inp, _ = make(engine, tmp_path)
    whole = segment_key("job-1", 0, 1, OutputMode.TB)
    inp.put_bytes(whole, b"whole-video")
    backend.convert(parse_segment_key("input", whole), "jobs/job-1/segments/0.mp4",
                    ConversionParams())
    assert engine.calls[-1]["depth"] is None  # negative: none uploaded
    inp.put_bytes(depth_video_key("job-1"), b"depth-frames")
    backend.convert(parse_segment_key("input", whole), "jobs/job-1/segments/0.mp4",
                    ConversionParams())
    assert engine.calls[-1]["depth"] == b"depth-frames"
