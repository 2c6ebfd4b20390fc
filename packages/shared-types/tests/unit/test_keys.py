"""Key formats: builders and parsers round-trip; anything not canonical is rejected."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared_types import keys
from shared_types.errors import InvalidKeyError
from shared_types.models import OutputMode

job_ids = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
modes = st.sampled_from(list(OutputMode))


@st.composite
def segment_args(draw):
    total = draw(st.integers(1, keys.MAX_SEGMENTS))
    return draw(job_ids), draw(st.integers(0, total - 1)), total, draw(modes)


@given(job_ids)
def test_source_key_round_trips(job_id):
    assert keys.parse_source_key(keys.source_key(job_id)) == job_id


@given(segment_args())
def test_segment_key_round_trips(args):
    job_id, index, total, mode = args
    key = keys.segment_key(job_id, index, total, mode)
    payload = keys.parse_segment_key("in", key)
    assert payload is not None
    assert (payload.job_id, payload.segment_index, payload.total_segments, payload.mode) == (
        job_id, index, total, mode)
    assert (payload.bucket, payload.key) == ("in", key)
    assert key.startswith(keys.segment_prefix(job_id))


@given(job_ids, st.integers(0, keys.MAX_SEGMENTS - 1))
def test_output_segment_key_round_trips(job_id, index):
    key = keys.output_segment_key(job_id, index)
    out = keys.parse_output_segment_key("out", key)
    assert (out.job_id, out.segment_index, out.key) == (job_id, index, key)
    assert key.startswith(keys.output_prefix(job_id))


@given(job_ids)
def test_final_key_round_trips_and_is_not_a_segment_output(job_id):
    key = keys.final_key(job_id)
    assert keys.parse_final_key(key) == job_id
    assert keys.parse_output_segment_key("out", key) is None


def mispadded(number: int, shorter: bool) -> str:
    """``number`` with one digit too few (when it has a leading zero) or too many."""
    padded = f"{number:05d}"
    return padded[1:] if shorter and padded.startswith("0") else "0" + padded


@given(segment_args(), st.booleans())
def test_segment_keys_with_wrong_zero_padding_are_rejected(args, shorter):
    job_id, index, total, mode = args
    key = f"segments/{job_id}/{mispadded(index, shorter)}_{total:05d}_{mode.value}.mp4"
    assert keys.parse_segment_key("in", key) is None
    key = f"segments/{job_id}/{index:05d}_{mispadded(total, shorter)}_{mode.value}.mp4"
    assert keys.parse_segment_key("in", key) is None


@given(job_ids, st.integers(1, 500), st.integers(0, 500))
def test_segment_index_at_or_past_total_is_rejected(job_id, total, extra):
    index = total + extra
    key = f"segments/{job_id}/{index:05d}_{total:05d}_sbs.mp4"
    assert keys.parse_segment_key("in", key) is None
    with pytest.raises(InvalidKeyError):
        keys.segment_key(job_id, index, total, OutputMode.SBS)


@given(job_ids, st.text(min_size=1, max_size=12).filter(lambda m: m not in set(OutputMode)))
def test_unknown_modes_are_rejected(job_id, mode):
    assert keys.parse_segment_key("in", f"segments/{job_id}/00000_00001_{mode}.mp4") is None
    with pytest.raises(InvalidKeyError):
        keys.segment_key(job_id, 0, 1, mode)


@given(segment_args(), st.sampled_from(["../", "x/", "/", "./", "a/../"]))
def test_extra_or_traversing_path_segments_are_rejected(args, insert):
    job_id, index, total, mode = args
    good = keys.segment_key(job_id, index, total, mode)
    head, name = good.rsplit("/", 1)
    assert keys.parse_segment_key("in", f"{head}/{insert}{name}") is None
    assert keys.parse_segment_key("in", "/" + good) is None
    assert keys.parse_source_key("/" + keys.source_key(job_id)) is None
    assert keys.parse_source_key(f"input/{job_id}/{insert}source.mp4") is None


@pytest.mark.parametrize("key", [
    "input/../source.mp4",
    "input/job/../../etc/source.mp4",
    "input//source.mp4",
    "input/job/source.mp4/",
    "input/job/source.MP4",
    "input/job/source.mp4.exe",
    "/input/job/source.mp4",
    "input/job\x00/source.mp4",
    "input/-job/source.mp4",
])
def test_malformed_source_keys_parse_to_none(key):
    assert keys.parse_source_key(key) is None


@pytest.mark.parametrize("key", [
    "jobs/job/final.mp4",
    "jobs/job/segments/01.mp4",
    "jobs/job/segments/-1.mp4",
    "jobs/job/segments/100000.mp4",
    "jobs/job/segments/1.mp4.tmp",
    "jobs/../segments/1.mp4",
    "jobs/job/x/segments/1.mp4",
    "/jobs/job/segments/1.mp4",
    "segments/job/00000_00001_sbs.mp4",
])
def test_non_canonical_output_keys_parse_to_none(key):
    assert keys.parse_output_segment_key("out", key) is None


@pytest.mark.parametrize("job_id", ["", "..", "a/b", "-lead", "a" * 65, "a b", "é"])
def test_builders_reject_unsafe_job_ids(job_id):
    assert not keys.is_valid_job_id(job_id)
    for build in (keys.source_key, keys.final_key, keys.segment_prefix, keys.output_prefix):
        with pytest.raises(InvalidKeyError):
            build(job_id)


@pytest.mark.parametrize(("index", "total"), [(-1, 5), (0, 0), (0, keys.MAX_SEGMENTS + 1)])
def test_segment_key_rejects_out_of_range_numbers(index, total):
    with pytest.raises(InvalidKeyError):
        keys.segment_key("job", index, total, "sbs")


def test_output_segment_key_rejects_negative_index():
    with pytest.raises(InvalidKeyError):
        keys.output_segment_key("job", -1)


def test_the_final_key_names_the_container():
    assert keys.final_key("job-1") == "jobs/job-1/final.mp4"
    assert keys.final_key("job-1", "mkv") == "jobs/job-1/final.mkv"
    assert keys.parse_final_key("jobs/job-1/final.mkv") == "job-1"
    assert keys.parse_final_key("jobs/job-1/final.avi") is None
    with pytest.raises(InvalidKeyError):
        keys.final_key("job-1", "avi")


def test_the_side_files_keys_are_not_source_keys():
    key = keys.streams_key("job-1")
    assert key == "input/job-1/streams.mkv"
    assert keys.parse_source_key(key) is None
    data = keys.data_tracks_key("job-1")  # ends in .mp4, but not in /source.mp4
    assert data == "input/job-1/data.mp4"
    assert keys.parse_source_key(data) is None


def test_segment_and_output_keys_carry_the_chunking_run():
    key = keys.segment_key("job-1", 2, 3, "sbs", run=7)
    assert key == "segments/job-1/r7/00002_00003_sbs.mp4"
    assert keys.parse_segment_key("b", key).run == 7
    out = keys.output_segment_key("job-1", 2, run=7)
    assert out == "jobs/job-1/segments/r7/2.mp4"
    assert keys.parse_output_segment_key("o", out).run == 7
    # run 0: jobs chunked before runs existed keep the old keys
    assert keys.parse_segment_key("b", keys.segment_key("job-1", 0, 1, "sbs")).run == 0
    assert keys.output_segment_key("job-1", 0) == "jobs/job-1/segments/0.mp4"


@pytest.mark.parametrize("key", ["segments/job-1/r0/00000_00001_sbs.mp4",
                                 "segments/job-1/r01/00000_00001_sbs.mp4",
                                 "segments/job-1/rx/00000_00001_sbs.mp4",
                                 "jobs/job-1/segments/r0/1.mp4",
                                 "jobs/job-1/segments/r1/r2/1.mp4"])
def test_a_malformed_run_part_is_not_a_key(key):
    assert keys.parse_segment_key("b", key) is None
    assert keys.parse_output_segment_key("o", key) is None


def test_a_run_out_of_range_is_refused():
    with pytest.raises(InvalidKeyError):
        keys.segment_key("job", 0, 1, "sbs", run=-1)
    with pytest.raises(InvalidKeyError):
        keys.output_segment_key("job", 0, run=keys.MAX_RUN + 1)
