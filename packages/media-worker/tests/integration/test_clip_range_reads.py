"""A preview clip on S3 reads only the seconds it cuts: ffmpeg gets a presigned
GET URL (moto_server behind a relay that counts the bytes S3 sent) and seeks
with Range requests, instead of downloading the whole film first."""

from __future__ import annotations

import av
import pytest
from shared_types.ffmpeg import ffmpeg_path
from shared_types.keys import source_key
from shared_types.testing.media import make_video

from media_worker.clip import cut_clip
from media_worker.errors import FfmpegFailedError
from media_worker.ffmpeg_runner import FfmpegRunner
from media_worker.source_file import source_input

from .counting_proxy import counting_proxy

pytest.importorskip("aws_adapters")
from aws_adapters.testing import moto_server  # noqa: E402

moto_server_url = moto_server.moto_server_url

FILM_S = 60.0


@pytest.fixture
def film(tmp_path_factory):
    return make_video(tmp_path_factory.mktemp("film") / "film.mp4", seconds=FILM_S,
                      size=(640, 360), fps=24, gop=48)


@pytest.fixture
def s3(moto_server_url):
    from aws_adapters.s3_storage import S3ObjectStorage

    with counting_proxy(moto_server_url) as proxy:
        storage = S3ObjectStorage("films", endpoint_url=proxy.url, region="us-east-1")
        storage._client.create_bucket(Bucket="films")
        yield storage, proxy
        storage._client.close()


def frames_and_duration(path) -> tuple[int, float]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        return frames, float(stream.duration * stream.time_base)


def test_a_clip_from_the_middle_of_an_s3_film_reads_a_small_part_of_it(s3, film, tmp_path):
    storage, proxy = s3
    info = storage.put_file(source_key("film-1"), film, content_type="video/mp4")
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=120)

    before = proxy.served
    args = source_input(storage, info, tmp_path / "download.mp4")
    clip = cut_clip(runner, args, 30.0, 2.0, tmp_path / "clip.mp4", source_duration_s=FILM_S)
    served = proxy.served - before

    assert args[-2] == "-i" and args[-1].startswith(proxy.url)  # a URL, not a download
    assert not (tmp_path / "download.mp4").exists()
    frames, duration = frames_and_duration(clip)
    assert frames == 48 and duration == pytest.approx(2.0, abs=0.1)
    print(f"clip read {served} of {info.size} bytes ({served / info.size:.1%})")
    assert 0 < served < info.size * 0.25


def test_a_replaced_s3_source_fails_the_clip_instead_of_mixing_uploads(s3, film, tmp_path):
    """Negative control of the ETag pin: the URL names the first upload (If-Match)."""
    storage, _ = s3
    info = storage.put_file(source_key("film-2"), film, content_type="video/mp4")
    storage.put_file(source_key("film-2"), make_video(tmp_path / "other.mp4", seconds=2),
                     content_type="video/mp4")
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=120)
    with pytest.raises(FfmpegFailedError, match="4XX"):
        cut_clip(runner, source_input(storage, info, tmp_path / "d.mp4"), 1.0, 1.0,
                 tmp_path / "clip.mp4")
