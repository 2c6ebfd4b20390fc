"""Every inference path smooths the seam the same way: the in-process engine and
the engine's real HTTP server (over file:// URIs on the local backend) convert
segment 1 with segment 0 as context, exactly like ``convert_file(context_path=)``."""

import subprocess
from pathlib import Path

import av
import pytest
from shared_types.keys import parse_segment_key, segment_key
from shared_types.models import ConversionParams, OutputMode
from shared_types.testing.serving import serve_in_thread
from stereo_inference import convert_file
from stereo_inference.server import create_app
from stereo_inference.settings import InferenceSettings
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.media import make_video
from stereo_media.testing.pictures import same_picture

from video_worker.http_backend import HttpInferenceBackend
from video_worker.local_backend import LocalInferenceBackend

MODE = OutputMode.SBS
OUT = "jobs/job-s/segments/1.mp4"
# Pictures of two conversions compared: lossless, so x264's run-to-run noise
# (its frame threads, larger on a loaded machine) cannot pass for a decision
LOSSLESS = ConversionParams(crf=0)


@pytest.fixture(scope="module")
def segments(tmp_path_factory) -> list[Path]:
    """Two keyframe-aligned 1 s segments cut from one continuous 2 s clip."""
    folder = tmp_path_factory.mktemp("segments")
    clip = make_video(folder / "clip.mp4", seconds=2.0, audio=False)
    subprocess.run([ffmpeg_path(), "-loglevel", "error", "-i", str(clip), "-c", "copy",
                    "-f", "segment", "-segment_time", "1", "-segment_time_delta", "0.05",
                    "-reset_timestamps", "1", str(folder / "seg%d.mp4")], check=True, timeout=60)
    return [folder / "seg0.mp4", folder / "seg1.mp4"]


def first_frame(path: Path):
    with av.open(str(path)) as container:
        return next(container.decode(video=0)).to_ndarray(format="rgb24")


def converted_first_frame(storage, tmp_path: Path):
    storage.get_file(OUT, tmp_path / "got.mp4")
    return first_frame(tmp_path / "got.mp4")


@pytest.fixture
def uploaded(local_backend, segments):
    for i, segment in enumerate(segments):
        local_backend.input_storage.put_file(segment_key("job-s", i, 2, MODE), segment)
    return parse_segment_key(local_backend.input_storage.bucket, segment_key("job-s", 1, 2, MODE))


@pytest.fixture
def reference(segments, tmp_path):
    """First output frame with the context (what every path must give) and without it."""
    with_context = convert_file(segments[1], tmp_path / "ctx.mp4", mode=MODE,
                                context_path=segments[0], params=LOSSLESS)
    plain = convert_file(segments[1], tmp_path / "plain.mp4", mode=MODE, params=LOSSLESS)
    assert with_context.frames == plain.frames == 24
    return first_frame(tmp_path / "ctx.mp4"), first_frame(tmp_path / "plain.mp4")


@pytest.mark.parametrize("seamless", [True, False])
def test_the_local_backend_converts_with_the_previous_segment(local_backend, uploaded,
                                                             reference, tmp_path, seamless):
    backend = LocalInferenceBackend(local_backend.input_storage, local_backend.output_storage,
                                    work_dir=tmp_path / "work", seamless=seamless)
    backend.convert(uploaded, OUT, LOSSLESS)
    expected = reference[0] if seamless else reference[1]
    assert same_picture(converted_first_frame(local_backend.output_storage, tmp_path), expected)


def test_the_http_backend_and_the_engine_server_agree(local_backend, uploaded, reference,
                                                       settings, tmp_path):
    root = Path(settings.data_dir).resolve()
    app = create_app(InferenceSettings(file_root=root, work_dir=tmp_path))
    with serve_in_thread(app, lifespan="auto") as url:
        backend = HttpInferenceBackend(url, local_backend.input_storage,
                                       local_backend.output_storage, timeout_s=60)
        result = backend.convert(uploaded, OUT, LOSSLESS)
        backend.close()
    assert result.frames == 24
    with_context, plain = reference
    got = converted_first_frame(local_backend.output_storage, tmp_path)
    assert same_picture(got, with_context)
    assert not same_picture(got, plain)
