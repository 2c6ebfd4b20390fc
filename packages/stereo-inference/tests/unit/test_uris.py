import pytest

from stereo_inference.errors import InvalidInputError
from stereo_inference.uris import parse_uri


def test_s3_uris_name_a_bucket_and_key():
    loc = parse_uri("s3://out/jobs/j1/segments/0.mp4", file_root=None)
    assert (loc.bucket, loc.key, loc.path) == ("out", "jobs/j1/segments/0.mp4", None)


def test_file_uris_inside_the_root_are_accepted(tmp_path):
    loc = parse_uri(f"file://{tmp_path}/in/a%20b.mp4", file_root=tmp_path)
    assert loc.path == tmp_path / "in" / "a b.mp4"


@pytest.mark.parametrize(
    "uri",
    ["file:///etc/passwd", "file://{root}/../escape.mp4", "file://host{root}/a.mp4"],
)
def test_file_uris_outside_the_root_are_refused(tmp_path, uri):
    with pytest.raises(InvalidInputError):
        parse_uri(uri.format(root=tmp_path), file_root=tmp_path)


def test_a_symlink_out_of_the_root_is_refused(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path)
    with pytest.raises(InvalidInputError, match="outside"):
        parse_uri(f"file://{tmp_path}/root/link/x.mp4", file_root=tmp_path / "root")


def test_file_uris_are_refused_without_a_root():
    with pytest.raises(InvalidInputError, match="disabled"):
        parse_uri("file:///tmp/a.mp4", file_root=None)


@pytest.mark.parametrize(
    "uri", ["http://example.com/a.mp4", "gs://b/k", "/tmp/a.mp4", "s3://bucket", "s3:///key"]
)
def test_other_schemes_and_malformed_uris_are_refused(uri):
    with pytest.raises(InvalidInputError):
        parse_uri(uri, file_root=None)
