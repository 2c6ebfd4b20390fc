"""build_backend: one data folder shared by several builds (processes), secrets, DLQ."""

import stat
from urllib.parse import parse_qsl, urlsplit

import pytest
from shared_types.errors import TransientError
from shared_types.models import Job

from local_adapters import Database, DatabaseBusyError, SqliteQueue, build_backend, make_signer


def test_two_builds_on_one_data_dir_share_state(settings):
    first, second = build_backend(settings), build_backend(settings)
    first.jobs.create(Job(job_id="job-1", mode="sbs"))
    first.reassembly_queue.send("job-1")
    assert second.jobs.get("job-1") is not None
    [msg] = second.reassembly_queue.receive(visibility_s=30)
    assert msg.body == "job-1"
    assert (settings.data_dir / "state.sqlite3").is_file()
    assert (settings.data_dir / "buckets" / settings.input_bucket).is_dir()


def test_without_a_configured_secret_one_is_generated_privately_and_reused(settings):
    settings = settings.model_copy(update={"signing_secret": None})
    url = build_backend(settings).output_storage.presign_get("jobs/j/final.mp4")
    key_file = settings.data_dir / "signing.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(key_file.read_bytes()) >= 32
    query = dict(parse_qsl(urlsplit(url).query))
    signed = make_signer(settings).verify(settings.output_bucket, "jobs/j/final.mp4", query,
                                          op="get")
    assert signed.key == "jobs/j/final.mp4"


def test_max_receives_is_configurable_and_reasons_are_kept(settings):
    b = build_backend(settings, max_receives=1)
    queue = b.chunking_queue
    assert isinstance(queue, SqliteQueue)
    queue.send("poison")
    [msg] = queue.receive(visibility_s=0)
    assert queue.receive(wait_s=0) == []
    [dead] = queue.dead_letters()
    assert dead.message_id == msg.message_id
    assert "max receive" in queue.dead_letter_reason(dead.message_id)
    queue.send("bad")
    [bad] = queue.receive(visibility_s=30)
    queue.dead_letter(bad, "malformed body")
    assert queue.dead_letter_reason(bad.message_id) == "malformed body"


def test_writes_leave_no_temp_files_behind(settings, tmp_path):
    b = build_backend(settings)
    src = tmp_path / "big.bin"
    src.write_bytes(b"x" * 100_000)
    b.output_storage.put_file("jobs/j/final.mp4", src)
    b.output_storage.put_bytes("jobs/j/segments/0.mp4", b"y")
    assert list((settings.data_dir / "tmp").iterdir()) == []


def test_a_database_held_by_another_writer_raises_a_transient_busy_error(tmp_path):
    locked = Database(tmp_path / "state.sqlite3")
    impatient = Database(tmp_path / "state.sqlite3", busy_timeout_s=0.05)
    holder = locked.connection()
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(DatabaseBusyError) as info:
            SqliteQueue(impatient, "q").send("x")
        assert isinstance(info.value, TransientError)
    finally:
        holder.execute("ROLLBACK")
    SqliteQueue(impatient, "q").send("x")
    assert SqliteQueue(locked, "q").stats().visible == 1


def test_starting_a_service_removes_uploads_a_killed_process_left_half_written(settings):
    import os
    import time

    tmp = settings.data_dir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    stale, fresh = tmp / "upload-killed", tmp / "upload-in-progress"
    stale.write_bytes(b"half a video")
    fresh.write_bytes(b"still being written by a sibling")
    day_ago = time.time() - 86400
    os.utime(stale, (day_ago, day_ago))
    build_backend(settings)
    assert not stale.exists()
    assert fresh.exists()


def test_a_new_database_waits_for_another_process_to_let_go_of_the_file(tmp_path, monkeypatch):
    """Services of one conversion open the file at once: one refused with
    "database is locked" while creating the schema tries again instead of
    failing the conversion. Negative control: held for good, the refusal is
    a transient busy error once its patience has run out."""
    from local_adapters import db

    path = tmp_path / "state.sqlite3"
    holder = Database(path).connection()
    holder.execute("BEGIN EXCLUSIVE")
    real_sleep = db.time.sleep
    waits = []

    def let_go_after_the_first_refusal(seconds):  # the holder commits while the new one waits
        waits.append(seconds)
        if len(waits) == 1:
            holder.execute("COMMIT")
        real_sleep(seconds)

    monkeypatch.setattr(db.time, "sleep", let_go_after_the_first_refusal)
    opened = Database(path, busy_timeout_s=0.05)
    assert waits  # it was refused once and tried again
    SqliteQueue(opened, "q").send("x")
    assert SqliteQueue(opened, "q").stats().visible == 1

    monkeypatch.setattr(db.time, "sleep", real_sleep)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(DatabaseBusyError, match="cannot create schema"):
            Database(path, busy_timeout_s=0.05)
    finally:
        holder.execute("ROLLBACK")
