import subprocess
from pathlib import Path

import av
import pytest
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.media import make_audio_only, make_video


@pytest.fixture(scope="session")
def media(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("media")


@pytest.fixture(scope="session")
def clip(media) -> Path:
    """1 s, 160x96, 24 fps, with AAC audio."""
    return make_video(media / "clip.mp4", seconds=1.0)


@pytest.fixture(scope="session")
def vfr_clip(media) -> Path:
    return make_video(media / "vfr.mp4", seconds=1.0, vfr=True, audio=False)


@pytest.fixture(scope="session")
def audio_only(media) -> Path:
    return make_audio_only(media / "audio.mp4")


@pytest.fixture(scope="session")
def halves(media) -> tuple[Path, Path]:
    """A continuous 2 s clip cut at its 1 s keyframe like media-worker cuts it."""
    whole = make_video(media / "whole.mp4", seconds=2.0, audio=False)
    out = media / "halves"
    out.mkdir()
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-i", str(whole),
                    "-c", "copy", "-f", "segment", "-segment_time", "1",
                    "-segment_time_delta", "0.05", "-reset_timestamps", "1",
                    str(out / "%05d.mp4")], check=True, timeout=60)
    first, second = sorted(out.glob("*.mp4"))
    return first, second


def read_video(path: Path) -> dict:
    """Frame count, size, timestamps (s), audio stream count, rotation of a file."""
    with av.open(str(path)) as c:
        stream = c.streams.video[0]
        frames = list(c.decode(stream))
        return {
            "frames": len(frames),
            "size": (frames[0].width, frames[0].height),
            "times": [round(float(f.pts * f.time_base), 4) for f in frames],
            "audio": len(c.streams.audio),
            "rotation": frames[0].rotation,
            "first": frames[0].to_ndarray(format="rgb24"),
        }


@pytest.fixture
def encoded(monkeypatch) -> list[list]:
    """The frames each conversion of the test hands to its encoder, one list per
    encoder opened, in order. What a conversion decided is compared here, not in
    its output file: x264's frame threads are not repeatable from run to run in
    one process (the same frames may come out a level apart)."""
    import numpy as np

    from stereo_inference.encode import StereoEncoder

    conversions: list[list] = []
    opened, write = StereoEncoder.__init__, StereoEncoder.write

    def opening(self, *args, **kwargs):
        conversions.append([])
        opened(self, *args, **kwargs)

    def recording(self, frames, fmt, pts, durations, captions=None):
        conversions[-1].extend(np.array(frame) for frame in frames)
        return write(self, frames, fmt, pts, durations, captions)

    monkeypatch.setattr(StereoEncoder, "__init__", opening)
    monkeypatch.setattr(StereoEncoder, "write", recording)
    return conversions
