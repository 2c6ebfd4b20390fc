from pathlib import Path

import pytest
from shared_types.left_out import extra_video_name, left_out_sentence, other_programme_name
from shared_types.models import Container

from stereo_media.demuxers import file_only
from stereo_media.source_streams import (
    ATTACHED_PIC,
    COVER_TAG,
    VIDEO_START_TAG,
    SourceStream,
    file_timecode,
    is_cover,
    kept_video_start_s,
    quicktime_tags,
    video_labels,
)
from stereo_media.stream_mux import (
    NothingToKeepError,
    container_of,
    cover_extract_command,
    covers_to_extract,
    data_track_args,
    data_tracks_command,
    decoding_args,
    mux_command,
    side_streams_command,
    stream_args,
    subtitle_name,
    teletext_inputs,
)
from stereo_media.ts_program_map import TeletextPage

FILM = [
    SourceStream("audio", "aac", 2, "eng", "English"),
    SourceStream("audio", "dts", 6, "fra", "Français 5.1"),
    SourceStream("subtitle", "subrip", language="eng"),
    SourceStream("subtitle", "hdmv_pgs_subtitle", language="deu"),
    SourceStream("attachment", "ttf"),
]


def test_mp4_copies_what_it_holds_reencodes_other_audio_and_converts_text_subtitles():
    args, dropped = stream_args(FILM, Container.MP4)
    joined = " ".join(args)
    assert "-map 1:a:0 -c:a:0 copy" in joined
    assert "-map 1:a:1 -c:a:1 aac -b:a:1 576000" in joined  # same 6 channels, as AAC
    assert "-map 1:s:0 -c:s:0 mov_text" in joined
    assert "1:s:1" not in joined
    assert "1:t" not in joined
    assert dropped == ["Blu-ray (PGS) subtitles", "attachment"]
    assert "-metadata:s:a:1 title=Français 5.1" in joined


def test_mkv_keeps_every_stream_as_it_is():
    args, dropped = stream_args(FILM, Container.MKV)
    joined = " ".join(args)
    assert dropped == []
    assert "-c:a:1 copy" in joined
    assert "-map 1:s:1 -c:s:1 copy" in joined
    assert "-map 1:t:0 -c:t copy" in joined


def test_mov_text_becomes_subrip_in_mkv():
    args, _ = stream_args([SourceStream("subtitle", "mov_text")], Container.MKV)
    assert args[:4] == ["-map", "1:s:0", "-c:s:0", "srt"]


def test_the_mux_maps_chapters_tags_and_only_input_files():
    args, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mkv"), container=Container.MKV,
                          streams=FILM, packing="sbs")
    assert args.count("-protocol_whitelist") == 2
    assert args[args.index("-map_chapters") + 1] == "1"
    assert "stereo_mode=left_right" in args
    assert args[-3:] == ["-f", "matroska", "o.mkv"]
    mp4, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mp4"), container=Container.MP4,
                         streams=FILM, packing="tb")
    assert not any(a.startswith("stereo_mode") for a in mp4)  # st3d is added afterwards


def test_the_video_can_come_from_input_arguments_such_as_a_concat_list():
    joined = ["-safe", "0", "-protocol_whitelist", "file", "-f", "concat", "-i", "list.txt"]
    args, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mp4"), container=Container.MP4,
                          streams=FILM, packing=None, video_input=joined)
    assert args[args.index("-safe"):args.index("-safe") + len(joined)] == joined
    assert "v.mp4" not in args
    assert args[args.index("-map") + 1] == "0:v:0"  # the video: the first input


def test_the_side_streams_need_something_to_keep():
    with pytest.raises(NothingToKeepError, match="nothing beside its picture"):
        side_streams_command(Path("a"), Path("b"), [SourceStream("video", "h264")])
    args, _ = side_streams_command(Path("a"), Path("b"), FILM[:1])
    assert "-map_chapters" in args
    assert args[args.index("-map") + 1] == "0:a:0"
    assert args[-3:] == ["-f", "matroska", "b"]


def test_chapters_and_tags_alone_are_kept_as_ffmetadata_text():
    # an MKV needs a stream: a silent clip's chapters and tags go into a text file
    args, _ = side_streams_command(Path("a"), Path("b"), [], tagged=True)
    assert "-map" not in args
    assert args[-3:] == ["-f", "ffmetadata", "b"]
    assert "-map_chapters" in args and "-map_metadata" in args


def test_a_video_that_began_after_the_audio_is_put_back_where_it_began():
    joined = ["-safe", "0", "-f", "concat", "-i", "list.txt"]
    args, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mp4"), container=Container.MP4,
                          streams=FILM, packing=None, video_input=joined, video_start_s=1.5)
    at = args.index("-itsoffset")
    assert args[at + 1] == "1.500000"
    assert args[at + 2:at + 2 + len(joined)] == joined  # an option of the video input
    assert args.index("list.txt") < args.index("s.mkv")
    assert args[args.index("-metadata") + 1] == f"{VIDEO_START_TAG}="  # the note is not kept
    plain, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mp4"),
                           container=Container.MP4, streams=FILM, packing=None)
    assert "-itsoffset" not in plain


def test_streams_that_begin_after_the_picture_are_put_back_after_it():
    # a side file whose first stream (a late soundtrack) begins 0.75 s after the video
    joined = ["-f", "concat", "-i", "list.txt"]
    args, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mp4"), container=Container.MP4,
                          streams=FILM, packing=None, video_input=joined,
                          streams_start_s=0.75)
    at = args.index("-itsoffset")
    assert args[at + 1] == "0.750000"
    assert args.index("list.txt") < at < args.index("s.mkv")  # an option of the side file
    both, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mp4"), container=Container.MP4,
                          streams=FILM, packing=None, video_input=joined, video_start_s=1.0,
                          streams_start_s=0.25)  # the video still 0.75 s after them
    assert both[both.index("-itsoffset") + 1] == "0.750000"
    assert both.index("-itsoffset") < both.index("list.txt")


def test_the_side_streams_note_where_the_video_began_and_it_reads_back():
    args, _ = side_streams_command(Path("a"), Path("b"), FILM[:1], video_start_s=0.25)
    tag = args[args.index("-metadata") + 1]
    assert tag == f"{VIDEO_START_TAG}=0.250000"
    key, value = tag.split("=")
    assert kept_video_start_s({key.lower(): value}) == 0.25  # MKV tags come back in any case
    assert "-metadata" not in side_streams_command(Path("a"), Path("b"), FILM[:1])[0]
    assert kept_video_start_s({}) == 0.0
    assert kept_video_start_s({VIDEO_START_TAG: "junk"}) == 0.0


def test_the_container_comes_from_the_suffix():
    assert container_of(Path("x.MKV")) is Container.MKV
    assert container_of(Path("x.mp4")) is Container.MP4
    assert container_of(Path("x.mov"), Container.MKV) is Container.MKV


def test_only_a_real_video_language_and_title_are_carried_over():
    assert video_labels(None) == {}
    assert video_labels(SourceStream("video", "h264", language="und")) == {}
    assert video_labels(SourceStream("video", "h264", language="deu", title="Cam")) == \
        {"language": "deu", "title": "Cam"}


class _Stream:
    def __init__(self, kind: str, **tags: str) -> None:
        self.type, self.metadata = kind, tags


class _File:
    def __init__(self, streams: list[_Stream], **tags: str) -> None:
        self.streams, self.metadata = streams, tags


@pytest.mark.parametrize(("file", "timecode"), [
    (_File([_Stream("video"), _Stream("data", timecode="01:02:03:04")]), "01:02:03:04"),
    (_File([_Stream("video", timecode="10:00:00;12")]), "10:00:00;12"),  # drop-frame
    (_File([_Stream("video")], TIMECODE="00:59:59:29"), "00:59:59:29"),  # an MKV tag
    (_File([_Stream("video"), _Stream("audio", timecode="01:00:00:00")]), None),
    (_File([_Stream("video", timecode="yesterday")]), None),
    (_File([_Stream("video")]), None),
])
def test_a_start_timecode_is_read_from_a_tmcd_track_the_video_or_the_file(file, timecode):
    assert file_timecode(file) == timecode


@pytest.mark.parametrize("container", [Container.MP4, Container.MKV])
def test_the_source_timecode_is_written_on_the_output_and_only_when_valid(container):
    def tags(timecode):
        args, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o"), container=container,
                              streams=FILM[:1], packing=None, timecode=timecode)
        return [args[i + 1] for i, a in enumerate(args) if a == "-metadata:s:v:0"]
    assert "timecode=01:02:03:04" in tags("01:02:03:04")  # the film's, not a cover's
    assert not any(t.startswith("timecode") for t in tags(None))
    assert not any(t.startswith("timecode") for t in tags("-f null"))


COVER = SourceStream("cover", "mjpeg", index=5)


def test_a_cover_is_kept_in_mp4_as_an_attached_picture_beside_the_film():
    args, dropped = stream_args([*FILM[:1], COVER], Container.MP4)
    assert dropped == []
    at = args.index("1:5")  # mapped by its index: "v:1" could be the film's own stream
    assert args[at + 1:at + 3] == ["-c:v:1", "copy"]
    assert args[args.index("attached_pic") - 1] == "-disposition:v:1"


def test_a_final_mkv_attaches_the_extracted_cover_and_a_side_file_keeps_it_tagged():
    args, dropped = stream_args([COVER], Container.MKV)
    assert (args, dropped) == ([], ["cover art"])  # a copied picture: a second video track
    covers = covers_to_extract([FILM[4], COVER], Container.MKV, Path("/w"))
    assert covers == [(COVER, Path("/w/cover.jpg"))]
    assert covers_to_extract([COVER], Container.MP4, Path("/w")) == []  # mapped instead
    extract = cover_extract_command(Path("s.mkv"), COVER, Path("/w/cover.jpg"))
    assert extract[extract.index("-map") + 1] == "0:5" and extract[-1] == "/w/cover.jpg"
    mux, dropped = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mkv"),
                               container=Container.MKV, streams=[FILM[4], COVER], packing=None,
                               cover_files=[Path("/w/cover.jpg")])
    assert dropped == []
    at = mux.index("-attach")
    assert mux[at + 1:at + 6] == ["/w/cover.jpg", "-metadata:s:t:1", "mimetype=image/jpeg",
                                  "-metadata:s:t:1", "filename=cover.jpg"]  # after the font
    side, _ = side_streams_command(Path("a"), Path("b"), [COVER])
    at = side.index("0:5")
    assert side[at + 1:at + 3] == ["-c:v:0", "copy"]
    assert side[side.index(f"{COVER_TAG}=1") - 1] == "-metadata:s:v:0"


def test_only_pictures_mp4_can_show_are_kept_as_covers():
    assert stream_args([SourceStream("cover", "gif", index=2)], Container.MP4) == \
        ([], ["cover art"])


@pytest.mark.parametrize(("stream", "cover"), [
    (_Stream("video"), False),
    (_Stream("audio"), False),
    (_Stream("video", **{COVER_TAG: "1"}), True),  # read back from a side file
])
def test_a_cover_is_an_attached_picture_or_a_side_files_tagged_track(stream, cover):
    assert is_cover(stream) is cover


def test_an_attached_picture_disposition_makes_a_cover():
    picture = _Stream("video")
    picture.disposition = ATTACHED_PIC
    assert is_cover(picture)


def test_phones_keys_are_found_in_any_case_and_spelt_as_the_phone_does():
    tags = {"COM.APPLE.QUICKTIME.LOCATION.ISO6709": "+37.3349-122.0090+030.000/",
            "com.apple.quicktime.make": "Apple", "title": "Holiday", "MAJOR_BRAND": "isom",
            "COM.ANDROID.CAPTURE.FPS": "240.0", "com.example.other": "x"}
    assert quicktime_tags(tags) == {
        "com.apple.quicktime.location.ISO6709": "+37.3349-122.0090+030.000/",
        "com.apple.quicktime.make": "Apple", "com.android.capture.fps": "240.0"}


def test_apples_keys_go_into_mp4_as_mdta_keys_without_the_writer_tags_twice():
    keys = {"com.apple.quicktime.make": "Apple"}
    args, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mp4"), container=Container.MP4,
                          streams=[], packing=None, quicktime=keys)
    assert args[args.index("-movflags") + 1] == "+faststart+use_metadata_tags"
    tags = [args[i + 1] for i, a in enumerate(args) if a == "-metadata"]
    assert "com.apple.quicktime.make=Apple" in tags
    assert {"major_brand=", "minor_version=", "compatible_brands=", "encoder="} <= set(tags)
    plain, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mp4"), container=Container.MP4,
                           streams=[], packing=None)
    assert plain[plain.index("-movflags") + 1] == "+faststart"
    mkv, _ = mux_command(Path("v.mp4"), Path("s.mkv"), Path("o.mkv"), container=Container.MKV,
                         streams=[], packing=None, quicktime=keys)
    assert "-movflags" not in mkv  # MKV keeps them as tags through -map_metadata


TELEMETRY = SourceStream("data", "gpmd", index=4)
UNKNOWN_DATA = SourceStream("data", "fdsc", index=5)  # a GoPro's own file-repair track


def test_telemetry_is_copied_into_mp4_by_index_and_dropped_by_name_elsewhere():
    args, dropped = data_track_args([TELEMETRY, UNKNOWN_DATA], Container.MP4, input_index=2)
    assert args == ["-map", "2:4", "-c:d:0", "copy"]
    assert dropped == ["a data track (fdsc)"]  # the MP4 muxer would refuse it: the mux fails
    args, dropped = data_track_args([TELEMETRY], Container.MKV, input_index=2)
    assert (args, dropped) == ([], ["GoPro telemetry (gpmd)"])  # MKV holds no data track


def test_the_final_mux_reads_telemetry_from_a_third_input_only_when_it_keeps_some():
    def inputs(args):
        return [args[i + 1] for i, a in enumerate(args) if a == "-i"]

    args, dropped = mux_command(Path("v.mp4"), Path("side.mkv"), Path("o.mp4"),
                                container=Container.MP4, streams=FILM[:1], packing="sbs",
                                data=[TELEMETRY], data_source=Path("data.mp4"))
    assert inputs(args) == ["v.mp4", "side.mkv", "data.mp4"] and dropped == []
    assert "-map 2:4 -c:d:0 copy" in " ".join(args)
    args, dropped = mux_command(Path("v.mp4"), Path("src.mp4"), Path("o.mp4"),
                                container=Container.MP4, streams=[], packing=None,
                                data=[TELEMETRY])
    assert inputs(args) == ["v.mp4", "src.mp4", "src.mp4"]  # the source's own, by default
    args, dropped = mux_command(Path("v.mp4"), Path("src.mp4"), Path("o.mkv"),
                                container=Container.MKV, streams=[], packing=None,
                                data=[TELEMETRY])
    assert inputs(args) == ["v.mp4", "src.mp4"] and dropped == ["GoPro telemetry (gpmd)"]


def test_a_data_side_file_holds_only_the_telemetry_an_mp4_keeps():
    args = data_tracks_command(Path("s.mp4"), Path("data.mp4"), [TELEMETRY, UNKNOWN_DATA])
    assert " ".join(args).endswith("-map 0:4 -c:d:0 copy -map_metadata -1 -map_chapters -1 "
                                   "-f mp4 data.mp4")
    with pytest.raises(NothingToKeepError):
        data_tracks_command(Path("s.mp4"), Path("data.mp4"), [UNKNOWN_DATA])


def test_repaired_audio_is_encoded_again_with_its_gaps_kept_silent():
    args, _ = stream_args(FILM[:2], Container.MKV, repair_audio=True)
    joined = " ".join(args)
    # even what MKV would copy: a copy is what failed on the damaged frames
    assert "-c:a:0 aac -b:a:0 192000 -filter:a:0 aresample=async=1:min_hard_comp=0.01" in joined
    assert "-c:a:1 aac -b:a:1 576000 -filter:a:1 aresample" in joined  # 5.1 stays 5.1
    assert "copy" not in joined
    side, _ = side_streams_command(Path("s.ts"), Path("side.mkv"), FILM[:1], repair_audio=True)
    assert "aac" in side and "copy" not in side[side.index("-map"):side.index("-map") + 4]


@pytest.mark.parametrize("container", [Container.MP4, Container.MKV])
def test_subtitle_streams_no_muxer_here_writes_are_left_out_not_copied(container):
    # teletext with no subtitle page (a service's index, news), an ARIB caption
    # stream: copying one fails the whole mux
    broadcast = [SourceStream("subtitle", "dvb_teletext"), SourceStream("subtitle", "arib_caption"),
                 SourceStream("subtitle", "dvb_subtitle")]
    args, dropped = stream_args(broadcast, container)
    assert "1:s:0" not in args and "1:s:1" not in args
    assert dropped[:2] == ["teletext", "arib_caption subtitles"]  # named for people
    assert decoding_args(broadcast) == []
    # DVB subtitles: MKV holds them, MP4 does not
    assert ("1:s:2" in args) == (container is Container.MKV)


@pytest.mark.parametrize(("container", "codec"), [(Container.MP4, "mov_text"),
                                                  (Container.MKV, "srt")])
def test_each_teletext_subtitle_page_becomes_a_text_track_of_its_own(container, codec):
    german, french = TeletextPage("777", "deu"), TeletextPage("888", "fra", True)
    streams = [SourceStream("subtitle", "dvb_subtitle"),
               SourceStream("subtitle", "dvb_teletext", language="deu,fra",
                            pages=(german, french))]
    args, dropped = stream_args(streams, container, pages_input=2)
    joined = " ".join(args)
    first = 1 if container is Container.MKV else 0  # MP4 drops the DVB subtitles
    # the first page from the source's input, the second from an input of its own
    assert f"-map 1:s:1 -c:s:{first} {codec}" in joined
    assert f"-map 2:s:1 -c:s:{first + 1} {codec}" in joined
    assert f"-metadata:s:s:{first} language=deu -metadata:s:s:{first} title=Teletext " \
           "subtitles" in joined
    assert f"language=fra -metadata:s:s:{first + 1} title=Teletext subtitles (hard of " \
           "hearing)" in joined
    assert f"-disposition:s:{first + 1} hearing_impaired" in joined
    assert "language=deu,fra" not in joined
    assert decoding_args(streams) == ["-max_error_rate", "1", "-fix_sub_duration:s:1",
                                      "-txt_format:s:1", "text", "-txt_page:s:1", "777"]
    assert teletext_inputs(streams, Path("rec.ts")) == [
        "-fix_sub_duration:s:1", "-txt_format:s:1", "text", "-txt_page:s:1", "888",
        *file_only(), "-i", "rec.ts"]
    # with no input for it, the second page is named as left out
    _, without = stream_args(streams, container)
    assert "teletext page 888" in without

    side, _ = side_streams_command(Path("rec.ts"), Path("side.mkv"), streams)
    assert side.count("-i") == 2 and "1:s:1" in side
    assert side.index("-txt_page:s:1") < side.index("-i")
    mux, _ = mux_command(Path("v.mp4"), Path("rec.ts"), Path("o.mp4"), container=container,
                         streams=streams, packing=None)
    assert mux.index("-txt_page:s:1") > mux.index("v.mp4")  # on the source's input
    assert mux.index("-txt_page:s:1") < mux.index("rec.ts")
    assert [mux[i + 1] for i, a in enumerate(mux) if a == "-i"] == ["v.mp4", "rec.ts", "rec.ts"]
    assert "2:s:1" in mux


@pytest.mark.parametrize(("container", "codec"), [(Container.MP4, "mov_text"),
                                                  (Container.MKV, "srt")])
def test_a_caption_track_becomes_text_named_closed_captions(container, codec):
    # a MOV's c608 track: no muxer copies it
    tracks = [SourceStream("subtitle", "eia_608"),
              SourceStream("subtitle", "eia_608", language="fra", title="CC1")]
    args, dropped = stream_args(tracks, container)
    assert dropped == []
    joined = " ".join(args)
    assert f"-map 1:s:0 -c:s:0 {codec} -metadata:s:s:0 title=Closed captions" in joined
    assert f"-map 1:s:1 -c:s:1 {codec}" in joined and "title=CC1" in joined
    side, _ = side_streams_command(Path("s.mov"), Path("side.mkv"), tracks[:1])
    assert "srt" in side and subtitle_name("eia_608") == "closed captions"


# what a conversion leaves out of a source says why (shared_types.left_out)
def test_video_tracks_beside_the_film_are_never_mapped():
    streams = [SourceStream("audio", "aac"), SourceStream("video", "h264", index=1),
               SourceStream("video", "hevc", index=3)]
    args, dropped = stream_args(streams, Container.MKV)
    assert "1:v" not in " ".join(args)
    assert dropped == [extra_video_name(2), extra_video_name(3)]


def test_another_programmes_tracks_are_never_mapped_and_say_why():
    # a recorded multiplex: the film's audio, then the other channel's video,
    # audio and teletext (whose pages no input decodes either)
    other = {"other_programme": True}
    streams = [SourceStream("audio", "mp2", index=1),
               SourceStream("video", "h264", index=2, **other),
               SourceStream("audio", "mp2", index=3, **other),
               SourceStream("subtitle", "dvb_teletext", index=4,
                            pages=(TeletextPage("888"), TeletextPage("777")), **other)]
    args, dropped = stream_args(streams, Container.MKV, pages_input=2)
    assert args[:2] == ["-map", "1:a:0"]
    assert "1:a:1" not in args and "1:s:0" not in args and "2:s:0" not in args
    assert dropped == [other_programme_name("video", 2), other_programme_name("audio", 2),
                       other_programme_name("subtitle", 1)]
    assert decoding_args(streams) == [] and teletext_inputs(streams, "rec.ts") == []
    assert left_out_sentence(dropped[:2], Container.MP4) == (
        "video track 2 (another programme of the broadcast); audio track 2 (another "
        "programme of the broadcast)")
