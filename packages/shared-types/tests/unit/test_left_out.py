"""What a file could not hold is said once; what the conversion leaves out says why."""

from shared_types.left_out import extra_video_name, left_out_sentence
from shared_types.models import Container


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
