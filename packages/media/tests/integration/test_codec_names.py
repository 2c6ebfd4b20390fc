"""Streams go by their codec's own name, not by the decoder PyAV picked: MP3
audio (decoded by ``mp3float``) is copied into an MP4, not re-encoded, and an
AV1 picture (decoded by ``libdav1d``) is AV1."""

import subprocess

import av

from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.source_streams import file_streams
from stereo_media.stream_mux import Container, stream_args
from stereo_media.stream_names import codec_name


def make(path, *codec):
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=24:duration=1",
                    "-f", "lavfi", "-i", "sine=frequency=440:duration=1", *codec, str(path)],
                   check=True, timeout=120)
    return path


def test_mp3_audio_is_named_mp3_and_copied_into_an_mp4(tmp_path):
    source = make(tmp_path / "phone.mp4", "-c:v", "libx264", "-c:a", "libmp3lame")
    with av.open(str(source)) as container:
        assert container.streams.audio[0].codec_context.name == "mp3float"  # the decoder
        streams = file_streams(container).streams
    assert [(s.kind, s.codec) for s in streams] == [("audio", "mp3")]
    args, dropped = stream_args(streams, Container.MP4)
    assert "-c:a:0 copy" in " ".join(args) and dropped == []


def test_an_av1_picture_is_named_av1(tmp_path):
    source = make(tmp_path / "web.mp4", "-c:v", "libsvtav1", "-preset", "12",
                  "-svtav1-params", "log-level=0", "-an")
    with av.open(str(source)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "libdav1d"  # the decoder
        assert codec_name(stream.codec_context) == "av1"
