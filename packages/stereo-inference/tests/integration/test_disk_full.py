"""The engine writing to a disk that fills up (a real tmpfs, real PyAV and
ffmpeg): a transient EngineDiskFullError that names the output's folder, and
no output or partial file left behind."""

import pytest
from shared_types.errors import TransientError
from shared_types.models import Container
from shared_types.testing.disk import entries, fill, small_disk
from stereo_media.ffmpeg import ffmpeg_path

from stereo_inference import convert_file
from stereo_inference.errors import EngineDiskFullError
from stereo_inference.mux import mux_output


@pytest.mark.parametrize("audio", [False, True], ids=["video only", "with audio"])
def test_a_conversion_onto_a_full_disk_is_a_disk_full_error_and_leaves_nothing(
        clip, vfr_clip, tmp_path, audio):
    with small_disk(tmp_path / "disk", 1024 * 1024) as disk:
        fill(disk, leave_bytes=4096)
        with pytest.raises(EngineDiskFullError) as info:
            convert_file(clip if audio else vfr_clip, disk / "o.mp4", mode="half-sbs")
        assert isinstance(info.value, TransientError)
        assert info.value.code == "disk_full"
        assert f"no space was left in {disk}" in str(info.value)
        assert entries(disk) == []  # neither the output nor a partial or video-only file


def test_muxing_the_audio_back_onto_a_full_disk_is_a_disk_full_error(clip, tmp_path):
    video_only = tmp_path / "video.mp4"
    convert_file(clip, video_only, mode="half-sbs")  # any H.264 file with the clip's timing
    with small_disk(tmp_path / "disk", 1024 * 1024) as disk:
        fill(disk, leave_bytes=4096)
        with pytest.raises(EngineDiskFullError, match=f"no space was left in {disk} while "
                                                      "adding the audio and subtitles"):
            mux_output(ffmpeg_path(), video_only, clip, disk / "o.mp4", container=Container.MP4,
                       packing="sbs", timeout_s=60)
