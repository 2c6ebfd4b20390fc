"""The whitelists every opener of a user's file passes (``stereo_media.demuxers``)
refuse a playlist, a concat list and a list naming a URL, with ffmpeg and with
PyAV; without them, the same lists are read (the control)."""

from __future__ import annotations

import subprocess

import av
import pytest
from shared_types.testing.http_receiver import http_receiver

from stereo_media.demuxers import av_options, file_only
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.media import make_video


@pytest.fixture
def served():
    """(its URL, what it received): a server no list may make anyone reach."""
    with http_receiver(404) as pair:
        yield pair


@pytest.fixture
def lists(tmp_path, served):
    """{kind: (path, options that force its demuxer)} naming another video or a URL."""
    other = make_video(tmp_path / "other.mp4", seconds=0.5)
    playlist = tmp_path / "a.m3u8"
    playlist.write_text(f"#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:0.5,\n{other}\n"
                        "#EXT-X-ENDLIST\n")
    concat = tmp_path / "a.ffconcat"
    concat.write_text(f"ffconcat version 1.0\nfile '{other}'\n")
    remote = tmp_path / "r.m3u8"
    remote.write_text("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:0.5,\n"
                      f"{served[0]}/x.ts\n#EXT-X-ENDLIST\n")
    return {"playlist": (playlist, []), "concat": (concat, ["-f", "concat", "-safe", "0"]),
            "url": (remote, [])}


def ffmpeg_reads(path, forced: list[str], guard: list[str]) -> bool:
    done = subprocess.run([ffmpeg_path(), "-hide_banner", "-nostdin", *guard, *forced,
                           "-i", str(path), "-f", "null", "-"], capture_output=True, timeout=60)
    return done.returncode == 0


@pytest.mark.parametrize("kind", ["playlist", "concat", "url"])
def test_ffmpeg_with_file_only_refuses_every_list(lists, served, kind):
    path, forced = lists[kind]
    assert not ffmpeg_reads(path, forced, file_only())
    assert served[1].paths == []


@pytest.mark.parametrize("kind", ["playlist", "concat"])
def test_ffmpeg_without_it_reads_the_other_file(lists, kind):  # the control
    path, forced = lists[kind]
    assert ffmpeg_reads(path, forced, [])


@pytest.mark.parametrize("kind", ["playlist", "url"])
def test_pyav_with_av_options_refuses_the_lists(lists, served, kind):
    path, _ = lists[kind]
    with pytest.raises(av.FFmpegError):
        av.open(str(path), options=av_options()).close()
    assert served[1].paths == []
    with av.open(str(lists["playlist"][0])) as container:  # the control: unguarded, it reads
        assert container.streams.video
