"""A DVB recording's streams are all named, teletext (which PyAV's FFmpeg cannot
name) included, with the pages that carry its subtitles."""

from pathlib import Path

import av

from shared_types.source_streams import file_streams
from shared_types.teletext import stream_subtitle_pages
from shared_types.testing.media import make_broadcast_recording, make_video


def test_teletext_is_named_with_its_subtitle_pages(tmp_path: Path):
    clean = make_video(tmp_path / "clean.mp4", seconds=3.0, size=(64, 48))
    recording = make_broadcast_recording(clean, tmp_path / "recording.ts")
    with av.open(str(recording)) as container:
        subtitles = [s for s in file_streams(container).streams if s.kind == "subtitle"]
    assert [(s.codec, s.pages) for s in subtitles] == [("dvb_teletext", ("888",)),
                                                       ("dvbsub", ())]
    # a service carrying no subtitles, and a stream that is not teletext, have none
    bare = make_broadcast_recording(clean, tmp_path / "bare.ts", teletext=())
    assert stream_subtitle_pages(bare, subtitles[0].index) == []
    assert stream_subtitle_pages(recording, subtitles[1].index) == []
    assert stream_subtitle_pages(tmp_path / "missing.ts", 2) == []
