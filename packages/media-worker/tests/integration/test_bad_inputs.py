"""Bad uploads end as failed jobs with a reason a person understands; the worker
keeps going and the next good upload still converts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from shared_types.models import Job, JobStatus, OutputMode, new_job_id
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.media import make_audio_only, make_video


def text_renamed(tmp: Path) -> Path:
    path = tmp / "notes.mp4"
    path.write_text("Meeting notes: this is plain text, not a video.\n" * 20)
    return path


def truncated(tmp: Path) -> Path:
    whole = make_video(tmp / "whole.mp4", seconds=4).read_bytes()
    path = tmp / "truncated.mp4"
    path.write_bytes(whole[: len(whole) // 2])
    return path


def undecodable_after_its_start(tmp: Path) -> Path:
    """A one-keyframe MP4 (the split re-encodes it) whose index is whole but whose
    pictures after the first few are zeros: it passes the probe, and the
    re-encode's decoder gives up ("Decode error rate ... exceeds maximum")."""
    whole = make_video(tmp / "whole.mp4", seconds=6, gop=1000).read_bytes()
    at = 0
    while whole[at + 4:at + 8] != b"mdat":
        at += int.from_bytes(whole[at:at + 4], "big")
    size = int.from_bytes(whole[at:at + 4], "big")
    keep = at + 8 + 20_000
    path = tmp / "damaged.mp4"
    path.write_bytes(whole[:keep] + bytes(at + size - keep) + whole[at + size:])
    return path


def without_its_index(tmp: Path) -> Path:
    """An MP4 written with its moov last (ffmpeg's default, a phone's), cut in
    the middle: the download or recording stopped before the index."""
    path = tmp / "cut.mp4"
    _ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x96:rate=24:duration=3", "-c:v", "libx264",
            "-preset", "ultrafast", str(path))
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    return path


def zero_bytes(tmp: Path) -> Path:
    path = tmp / "empty.mp4"
    path.write_bytes(b"")
    return path


def audio_only(tmp: Path) -> Path:
    return make_audio_only(tmp / "audio.mp4", seconds=1)


def hls_playlist(tmp: Path) -> Path:
    target = make_video(tmp / "secret.mp4", seconds=1)
    path = tmp / "playlist.mp4"
    path.write_text("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n"
                    f"#EXTINF:1.0,\nfile://{target}\n#EXT-X-ENDLIST\n")
    return path


def _ffmpeg(*args: str) -> None:
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", *args],
                   check=True, timeout=60)


def music_with_cover(tmp: Path) -> Path:
    """An iTunes-style .m4a: sound plus its album cover (an attached picture)."""
    sound = make_audio_only(tmp / "sound.m4a", seconds=1)
    cover = still_picture(tmp, ".jpg")
    path = tmp / "song.m4a"
    _ffmpeg("-i", str(sound), "-i", str(cover), "-map", "0", "-map", "1", "-c", "copy",
            "-disposition:v", "attached_pic", str(path))
    return path


def cover_only(tmp: Path) -> Path:
    """An MP4 whose only stream is a cover picture."""
    path = tmp / "cover.mp4"
    _ffmpeg("-i", str(still_picture(tmp, ".jpg")), "-c", "copy", "-disposition:v",
            "attached_pic", str(path))
    return path


def mp3_song(tmp: Path) -> Path:
    """An MP3 (its ID3 tag first, as ffmpeg and most taggers write it)."""
    path = tmp / "song.mp3"
    _ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=1", str(path))
    return path


def still_picture(tmp: Path, suffix: str) -> Path:
    path = tmp / f"photo{suffix}"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=160x96", "-frames:v", "1", str(path)], check=True, timeout=60)
    return path


BAD = {
    "PNG photo": (lambda tmp: still_picture(tmp, ".png"), "still picture (PNG), not a video"),
    "JPEG photo": (lambda tmp: still_picture(tmp, ".jpg"), "still picture (JPEG), not a video"),
    "text renamed .mp4": (text_renamed, "not a video we can read"),
    "truncated mp4": (truncated, "incomplete or damaged"),
    "mp4 cut before its index": (without_its_index, "incomplete: it has no index"),
    "zero-byte file": (zero_bytes, "empty (0 bytes)"),
    "pictures undecodable after the start": (undecodable_after_its_start,
                                             "The video is damaged"),
    "audio only": (audio_only, "no video stream found"),
    "music with a cover picture": (music_with_cover, "only sound and a cover picture"),
    "a cover picture alone": (cover_only, "only a cover picture"),
    "MP3 song": (mp3_song, "a sound recording (MP3), not a video"),
    "HLS playlist to a local file": (hls_playlist, "playlist, not a video"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_upload_fails_its_job_with_a_human_reason(
        local_backend, new_job, upload, worker_for, tmp_path, name):
    make, reason = BAD[name]
    job = new_job(local_backend)
    upload(local_backend, job.job_id, make(tmp_path))
    worker = worker_for(local_backend)

    assert worker.process_chunking_once(wait_s=1)

    failed = local_backend.jobs.get(job.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error.stage == "chunking"
    assert failed.error.code == "invalid_media"
    assert reason in failed.error.message
    assert failed.error.message.endswith(".")
    assert "Errno" not in failed.error.message
    assert "\n" not in failed.error.message and " @ 0x" not in failed.error.message  # ffmpeg's log
    stats = local_backend.chunking_queue.stats()
    assert stats.visible + stats.in_flight + stats.dead_letters == 0
    # a streamed split may have published segments before it stopped: they are
    # released with the failed job (they expire), never kept
    published = list(local_backend.input_storage.list(f"segments/{job.job_id}/"))
    assert local_backend.input_storage.unmark_expirable(f"segments/{job.job_id}/") == \
        len(published)
    assert not published or name == "pictures undecodable after the start"
    # the same worker goes on to chunk a good upload
    good = new_job(local_backend)
    upload(local_backend, good.job_id, make_video(tmp_path / "good.mp4", seconds=2))
    assert worker.process_chunking_once(wait_s=1)
    assert local_backend.jobs.get(good.job_id).status == JobStatus.CHUNKING_COMPLETE


@pytest.mark.parametrize("name", ["PNG photo", "HLS playlist to a local file", "MP3 song"])
def test_a_bad_upload_held_for_a_preview_is_named_too(local_backend, upload, worker_for,
                                                      tmp_path, name):
    # a held job's strip reads the source's header only: what the file is must
    # still be said, not "not in a known video format"
    make, reason = BAD[name]
    job = Job(job_id=new_job_id(), mode=OutputMode.HALF_SBS,
              status=JobStatus.AWAITING_CONFIRMATION)
    local_backend.jobs.create(job)
    upload(local_backend, job.job_id, make(tmp_path))

    assert worker_for(local_backend).process_chunking_once(wait_s=1)

    failed = local_backend.jobs.get(job.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error.code == "invalid_media"
    assert reason in failed.error.message
