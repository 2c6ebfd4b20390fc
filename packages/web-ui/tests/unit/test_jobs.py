import pytest
from shared_types.dtos import CreateJobRequest
from shared_types.models import LAYOUT_TAGS, Job, JobStatus, OutputMode, new_job_id

from web_ui import jobs
from web_ui.errors import BadRequestError, JobStateError, PageNotFoundError
from web_ui.identity import LOCAL_USER

from .conftest import add_job


@pytest.mark.parametrize("raw", ["", "abc", "../etc/passwd", "1" * 65,
                                 "00000000-0000-0000-0000-00000000000g"])
def test_a_job_id_that_is_not_a_uuid_is_not_found(raw):
    with pytest.raises(PageNotFoundError):
        jobs.parse_job_id(raw)


def test_a_uuid_job_id_is_returned_in_canonical_form():
    raw = "A3BB189E-8BF9-3888-9912-ACE4E6543002"
    assert jobs.parse_job_id(raw) == raw.lower()


def test_loading_a_missing_job_says_not_found(backend):
    with pytest.raises(PageNotFoundError):
        jobs.load_job(backend, "a3bb189e-8bf9-3888-9912-ace4e6543002", LOCAL_USER)


def test_create_job_records_a_created_job_with_its_params(backend):
    job = jobs.create_job(backend, CreateJobRequest(mode="anaglyph", title="  Trip  "),
                          LOCAL_USER)
    stored = backend.jobs.get(job.job_id)
    assert stored.status == JobStatus.CREATED
    assert stored.mode == OutputMode.ANAGLYPH
    assert stored.title == "Trip"


@pytest.mark.parametrize("mode", list(OutputMode))
def test_download_name_carries_the_layout_tag(backend, mode):
    job = add_job(backend, mode=mode, title="Holiday 2024")
    assert jobs.download_name(job) == f"Holiday_2024_{LAYOUT_TAGS[mode]}.mp4"


def test_download_name_ends_with_the_container(backend):
    job = Job(job_id=new_job_id(), mode=OutputMode.HALF_TB, title="Trip", container="mkv")
    assert jobs.download_name(job) == "Trip_Half_TB.mkv"


def test_download_name_strips_path_and_quote_characters(backend):
    job = add_job(backend, title='../../"evil"\r\n<name>')
    name = jobs.download_name(job)
    assert name == "evil_name_LRF_Full_SBS.mp4"


def test_download_name_without_title_uses_the_job_id(backend):
    job = add_job(backend, mode=OutputMode.HALF_TB)
    assert jobs.download_name(job) == f"stereo-spot-{job.job_id[:8]}_Half_TB.mp4"


def test_playback_of_an_unfinished_job_is_refused(backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=2)
    with pytest.raises(JobStateError):
        jobs.playback(backend, job, expires_s=60)


def test_playback_gives_stream_and_named_download_urls(backend):
    job = add_job(backend, status=JobStatus.COMPLETED, mode=OutputMode.TB, title="x")
    urls = jobs.playback(backend, job, expires_s=60)
    assert f"jobs/{job.job_id}/final.mp4" in urls.url
    assert "download" not in urls.url
    assert urls.download_name == "x_TB.mp4"
    assert "x_TB.mp4" in urls.download_url


def test_list_jobs_pages_completed_jobs_and_keeps_others_on_page_one(backend):
    running = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=1)
    failed = add_job(backend, status=JobStatus.FAILED)
    done = [add_job(backend, status=JobStatus.COMPLETED, completed_at=float(i))
            for i in range(3)]
    first = jobs.list_jobs(backend, LOCAL_USER, limit=2)
    assert [j.job_id for j in first.in_progress] == [running.job_id]
    assert [j.job_id for j in first.failed] == [failed.job_id]
    assert [j.job_id for j in first.completed] == [done[2].job_id, done[1].job_id]
    second = jobs.list_jobs(backend, LOCAL_USER, limit=2, cursor=first.next_cursor)
    assert [j.job_id for j in second.completed] == [done[0].job_id]
    assert second.in_progress == []
    assert second.failed == []
    assert second.next_cursor is None


def test_a_forged_cursor_is_a_bad_request(backend):
    with pytest.raises(BadRequestError):
        jobs.list_jobs(backend, LOCAL_USER, limit=2, cursor="not-a-cursor")
    with pytest.raises(BadRequestError):
        jobs.list_jobs(backend, LOCAL_USER, limit=2, cursor="x" * 600)


@pytest.mark.parametrize(("title", "stem"), [
    ("Été à Paris", "Été_à_Paris"),
    ("E\u0301te\u0301 a\u0300 Paris", "Été_à_Paris"),  # decomposed, as macOS names files
    ("日本の旅行", "日本の旅行"),
    ('Fête 🎉 "quoted" <b>', "Fête_quoted_b"),
])
def test_download_name_keeps_the_letters_of_any_language(backend, title, stem):
    job = add_job(backend, mode=OutputMode.HALF_SBS, title=title)
    assert jobs.download_name(job) == f"{stem}_Half_SBS.mp4"
