import os

from shared_types.temp_sweep import sweep_stale_temp

DAY = 86400.0


def aged(path, seconds_ago, now):
    os.utime(path, (now - seconds_ago, now - seconds_ago))


def test_only_stale_entries_with_our_prefixes_are_removed(tmp_path):
    now = 10 * DAY
    stale = tmp_path / "chunk-job-1-abc"
    (stale / "segments").mkdir(parents=True)
    (stale / "source.mp4").write_bytes(b"x" * 10)
    for p in (stale / "source.mp4", stale / "segments", stale):
        aged(p, 2 * DAY, now)
    live = tmp_path / "join-job-2-def"  # old folder, but a file in it is being written
    live.mkdir()
    (live / "final.mp4").write_bytes(b"y")
    aged(live, 2 * DAY, now)
    aged(live / "final.mp4", 10, now)
    upload = tmp_path / "upload-123"
    upload.write_bytes(b"z")
    aged(upload, 2 * DAY, now)
    foreign = tmp_path / "notes.txt"  # not ours, however old
    foreign.write_text("keep")
    aged(foreign, 30 * DAY, now)

    removed = sweep_stale_temp(tmp_path, ("chunk-", "join-", "upload-"), older_than_s=DAY,
                               now=now)

    assert sorted(p.name for p in removed) == ["chunk-job-1-abc", "upload-123"]
    assert not stale.exists()
    assert not upload.exists()
    assert live.exists()
    assert foreign.exists()


def test_a_missing_folder_is_no_error(tmp_path):
    assert sweep_stale_temp(tmp_path / "nope", ("chunk-",)) == []
    assert sweep_stale_temp(None, ("chunk-",)) == []
