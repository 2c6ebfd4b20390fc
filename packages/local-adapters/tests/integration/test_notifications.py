"""Object-created events reach the right queue, shaped like S3's."""

from shared_types import keys
from shared_types.events import parse_s3_event_body

from local_adapters import build_backend


def drain(queue) -> list[str]:
    out = []
    while batch := queue.receive(max_messages=10, visibility_s=30):
        for msg in batch:
            out += [r.key for r in parse_s3_event_body(msg.body)]
            queue.delete(msg)
    return out


def test_each_write_notifies_only_its_queue(settings):
    b = build_backend(settings)
    b.input_storage.put_bytes(keys.source_key("job-1"), b"v")
    b.input_storage.put_bytes(keys.segment_key("job-1", 0, 2, "sbs"), b"s")
    b.input_storage.put_bytes("input/job-1/notes.txt", b"ignored")
    b.output_storage.put_bytes(keys.output_segment_key("job-1", 0), b"o")
    b.output_storage.put_bytes("jobs/job-1/log.txt", b"ignored")
    b.output_storage.put_bytes("input/job-1/source.mp4", b"wrong bucket")
    assert drain(b.chunking_queue) == ["input/job-1/source.mp4"]
    assert drain(b.video_queue) == ["segments/job-1/00000_00002_sbs.mp4"]
    assert drain(b.segment_output_queue) == ["jobs/job-1/segments/0.mp4"]
    assert drain(b.reassembly_queue) == []


def test_final_mp4_is_notified_but_the_output_parser_ignores_it(settings):
    b = build_backend(settings)
    b.output_storage.put_bytes(keys.final_key("job-1"), b"f")
    [key] = drain(b.segment_output_queue)
    assert keys.parse_output_segment_key(settings.output_bucket, key) is None


def test_keys_with_spaces_and_plus_survive_the_event_encoding(settings, tmp_path):
    b = build_backend(settings)
    src = tmp_path / "v.mp4"
    src.write_bytes(b"data")
    b.input_storage.put_file("segments/a b+c/x y.mp4", src)
    assert drain(b.video_queue) == ["segments/a b+c/x y.mp4"]


def test_event_carries_size_and_the_etag_head_reports(settings):
    b = build_backend(settings)
    info = b.input_storage.put_bytes(keys.source_key("job-1"), b"12345")
    [msg] = b.chunking_queue.receive(visibility_s=30)
    [record] = parse_s3_event_body(msg.body)
    assert (record.size, record.etag) == (5, info.etag)
    assert b.input_storage.head(keys.source_key("job-1")).etag == info.etag
