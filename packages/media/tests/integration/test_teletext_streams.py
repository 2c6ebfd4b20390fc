"""A DVB recording's streams are all named, teletext (which PyAV's FFmpeg cannot
name) included, with the pages that carry its subtitles."""

from pathlib import Path

import av

from stereo_media.source_streams import file_streams
from stereo_media.teletext import stream_pages, stream_subtitle_pages
from stereo_media.testing.media import make_broadcast_recording, make_video
from stereo_media.ts_program_map import TeletextPage, read_programme_map


def test_teletext_is_named_with_its_subtitle_pages(tmp_path: Path):
    clean = make_video(tmp_path / "clean.mp4", seconds=3.0, size=(64, 48))
    recording = make_broadcast_recording(clean, tmp_path / "recording.ts")
    with av.open(str(recording)) as container:
        subtitles = [s for s in file_streams(container).streams if s.kind == "subtitle"]
    assert [(s.codec, s.pages) for s in subtitles] == [
        ("dvb_teletext", (TeletextPage("888"),)), ("dvb_subtitle", ())]
    # a service carrying no subtitles, and a stream that is not teletext, have none
    bare = make_broadcast_recording(clean, tmp_path / "bare.ts", teletext=())
    assert stream_subtitle_pages(bare, subtitles[0].index) == []
    assert stream_subtitle_pages(recording, subtitles[1].index) == []
    assert stream_subtitle_pages(tmp_path / "missing.ts", 2) == []


def test_each_page_is_named_with_what_the_programme_map_says_of_it(tmp_path: Path):
    # a service with English subtitles on 888, French for the hard of hearing on
    # 777, and a German page 150 it lists but never sends in this programme
    clean = make_video(tmp_path / "clean.mp4", seconds=3.0, size=(64, 48))
    recording = make_broadcast_recording(
        clean, tmp_path / "recording.ts",
        teletext=(("HELLO", 0.5, 1.5), ("BONJOUR", 0.7, 1.8, 0x777)),
        described=(("eng", 2, 0x888), ("fra", 5, 0x777), ("deu", 2, 0x150)))
    with av.open(str(recording)) as container:
        teletext = next(s for s in file_streams(container).streams if s.pages)
        pid = container.streams[teletext.index].id
    english, french = TeletextPage("888", "eng"), TeletextPage("777", "fra", True)
    assert teletext.pages == (english, french)
    assert read_programme_map(recording).pages(pid) == [english, french, TeletextPage("150", "deu")]
    # read only in part, the headers cannot say the listed page never comes
    assert stream_pages(recording, teletext.index, max_s=0.1,
                        described=read_programme_map(recording).pages(pid)) == (
        english, french, TeletextPage("150", "deu"))
    # no programme map entry: the stream's own language, when it names one
    assert stream_pages(recording, teletext.index, language="eng") == (
        TeletextPage("777", "eng"), TeletextPage("888", "eng"))
    assert read_programme_map(recording).pages(pid + 99) == []
    assert read_programme_map(tmp_path / "missing.ts").pages(pid) == []


def test_an_ffmpeg_without_a_teletext_decoder_leaves_teletext_out(tmp_path: Path, monkeypatch):
    from shared_types.models import Container

    import stereo_media.source_streams as source_streams
    from stereo_media.stream_mux import stream_args
    from stereo_media.stream_names import ffmpeg_decoders

    assert {"libzvbi_teletextdec", "h264", "cc_dec"} <= ffmpeg_decoders()  # the shipped one
    monkeypatch.setattr(source_streams, "ffmpeg_decoders", frozenset)  # a build without it
    clean = make_video(tmp_path / "clean.mp4", seconds=2.0, size=(64, 48))
    recording = make_broadcast_recording(clean, tmp_path / "recording.ts")
    with av.open(str(recording)) as container:
        streams = file_streams(container).streams
    teletext = next(s for s in streams if s.codec == "dvb_teletext")
    assert teletext.pages == ()
    _, dropped = stream_args(streams, Container.MKV)
    assert dropped == ["teletext"]  # named, not decoded: the mux would fail without it

