"""A playlist, a concat list or a list naming a URL, handed to the engine as
its "video", is refused by every opener (#52, finding 4: an ``.m3u8`` input
made ``probe_video`` read another local file by its absolute path). Each
list is first shown to work as an attack without the whitelist (the
control), so the refusals cannot pass by the list being broken."""

from __future__ import annotations

from pathlib import Path

import av
import pytest
from fastapi.testclient import TestClient
from shared_types.testing.http_receiver import http_receiver
from shared_types.testing.memory import MemoryStorage

from stereo_inference.decode import FrameReader
from stereo_inference.errors import InvalidInputError
from stereo_inference.server import create_app
from stereo_inference.settings import InferenceSettings
from stereo_inference.video_info import probe_video


@pytest.fixture
def url_receiver():
    """(its URL, what it received): a server no list may make anyone reach."""
    with http_receiver(404) as served:
        yield served


def lists(folder: Path, secret: Path, url: str) -> dict[str, Path]:
    """A playlist and a concat list naming ``secret`` by its absolute path, and
    a playlist naming ``url``."""
    playlist = folder / "playlist.m3u8"
    playlist.write_text("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:1.0,\n"
                        f"{secret}\n#EXT-X-ENDLIST\n")
    concat = folder / "list.ffconcat"
    concat.write_text(f"ffconcat version 1.0\nfile '{secret}'\n")
    remote = folder / "remote.m3u8"
    remote.write_text("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:1.0,\n"
                      f"{url}/private.ts\n#EXT-X-ENDLIST\n")
    return {"playlist": playlist, "concat": concat, "url": remote}


@pytest.fixture
def secret(clip, tmp_path) -> Path:
    path = tmp_path / "private" / "someone-elses.mp4"
    path.parent.mkdir()
    path.write_bytes(clip.read_bytes())
    return path


@pytest.mark.parametrize("kind", ["playlist", "concat"])
def test_without_the_whitelist_the_lists_do_read_the_other_file(kind, secret, tmp_path,
                                                               url_receiver):
    """The control: FFmpeg follows these lists when nothing stops it."""
    listed = lists(tmp_path, secret, url_receiver[0])[kind]
    options = {"safe": "0"} if kind == "concat" else {}
    with av.open(str(listed), options=options) as container:
        assert container.streams.video[0].width == 160


@pytest.mark.parametrize("kind", ["playlist", "concat", "url"])
def test_probe_and_decoder_refuse_every_list(kind, secret, tmp_path, url_receiver):
    listed = lists(tmp_path, secret, url_receiver[0])[kind]
    with pytest.raises(InvalidInputError):
        probe_video(listed)
    reader = FrameReader(listed, eye_size=(160, 96), depth_size=None, eye_format="rgb24",
                         batch_size=1)
    with pytest.raises(InvalidInputError):
        next(iter(reader))
    assert url_receiver[1].paths == []
    assert probe_video(secret).width == 160  # the control: a real video opens


@pytest.mark.parametrize("kind", ["playlist", "concat", "url"])
def test_the_server_refuses_a_list_whatever_its_key_says(kind, secret, tmp_path, url_receiver):
    listed = lists(tmp_path, secret, url_receiver[0])[kind]
    buckets = {"in": MemoryStorage("in"), "out": MemoryStorage("out")}
    key = f"segments/j/00000_00001_half-sbs{listed.suffix}"
    buckets["in"].put_file(key, listed)
    settings = InferenceSettings(models_dir=tmp_path / "models", work_dir=tmp_path / "work")
    app = create_app(settings, storage_factory=lambda bucket: buckets[bucket])
    with TestClient(app, raise_server_exceptions=False) as client:
        resp = client.post("/invocations", json={"mode": "half-sbs", "input_uri": f"s3://in/{key}",
                                                 "output_uri": "s3://out/o.mp4"})
    assert resp.status_code == 400, resp.text
    assert not buckets["out"].exists("o.mp4")
    assert url_receiver[1].paths == []
