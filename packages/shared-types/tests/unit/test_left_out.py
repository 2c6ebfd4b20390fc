"""What a file could not hold is said once; what the conversion leaves out says why."""

from shared_types.left_out import extra_video_name, left_out_sentence, other_programme_name
from shared_types.models import Container
from shared_types.source_streams import SourceStream
from shared_types.stream_mux import stream_args


def test_what_the_container_cannot_hold_is_said_once_after_the_list():
    assert (left_out_sentence(["Blu-ray (PGS) subtitles", "GoPro telemetry (gpmd)"],
                              Container.MP4)
            == "Blu-ray (PGS) subtitles, GoPro telemetry (gpmd) (the MP4 format cannot hold them)")
    assert left_out_sentence(["teletext"], Container.MKV) == (
        "teletext (the MKV format cannot hold it)")


def test_a_second_video_track_says_its_own_reason():
    assert left_out_sentence([extra_video_name(2)], Container.MKV) == (
        "video track 2 (only the first is made 3D)")
    assert left_out_sentence(["DVB subtitles", extra_video_name(2), extra_video_name(3)],
                             Container.MP4) == (
        "DVB subtitles (the MP4 format cannot hold it); video track 2 (only the first is "
        "made 3D); video track 3 (only the first is made 3D)")


def test_video_tracks_beside_the_film_are_never_mapped():
    streams = [SourceStream("audio", "aac"), SourceStream("video", "h264", index=1),
               SourceStream("video", "hevc", index=3)]
    args, dropped = stream_args(streams, Container.MKV)
    assert "1:v" not in " ".join(args)
    assert dropped == [extra_video_name(2), extra_video_name(3)]


def test_another_programmes_tracks_are_never_mapped_and_say_why():
    # a recorded multiplex: the film's audio, then the other channel's video,
    # audio and teletext (whose pages no input decodes either)
    from shared_types.stream_mux import decoding_args, teletext_inputs
    from shared_types.ts_program_map import TeletextPage

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
