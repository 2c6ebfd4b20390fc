"""A bucket folder has no folders of its own, as on S3: deleting a job's last
object leaves no empty directory behind, and never breaks a concurrent write
of another job."""

import threading

from shared_types.cancel import free_job_files
from shared_types.keys import output_segment_key, poster_key, segment_key, source_key
from shared_types.models import OutputMode
from shared_types.segment_retention import release_segments

from local_adapters.storage import FilesystemStorage

JOB, OTHER = "3d7c1a9e-0000-4000-8000-000000000001", "3d7c1a9e-0000-4000-8000-000000000002"


def everything_on_disk(settings) -> list[str]:
    root = settings.data_dir
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def write_a_job(backend, job_id: str) -> None:
    backend.input_storage.put_bytes(source_key(job_id), b"source")
    for i in range(2):
        backend.input_storage.put_bytes(segment_key(job_id, i, 2, OutputMode.SBS), b"seg")
        backend.output_storage.put_bytes(output_segment_key(job_id, i), b"out")
    backend.output_storage.put_bytes(poster_key(job_id), b"jpeg")


def test_deleting_a_jobs_objects_leaves_nothing_of_it_on_disk(backend, settings):
    before = everything_on_disk(settings)
    write_a_job(backend, JOB)
    write_a_job(backend, OTHER)
    release_segments(backend, JOB)  # the job ended: its segments carry expiry marks
    free_job_files(backend, JOB, keep_poster=False)
    left = everything_on_disk(settings)
    assert [p for p in left if JOB in p] == []  # no folder, no expiry mark
    assert {p for p in left if OTHER in p} >= {f"buckets/{backend.output_storage.bucket}/"
                                               f"{poster_key(OTHER)}"}
    free_job_files(backend, OTHER, keep_poster=False)
    buckets = [p for p in everything_on_disk(settings) if p.startswith("buckets")]
    assert buckets == [p for p in before if p.startswith("buckets")]  # the buckets stay
    assert [p for p in everything_on_disk(settings) if p.startswith("expirable/")
            and p.count("/") > 1] == []  # no mark is left


def test_a_job_with_nothing_to_expire_gets_no_mark(backend, settings):
    release_segments(backend, JOB)  # failed before chunking: no segments at all
    assert [p for p in everything_on_disk(settings) if JOB in p] == []


def test_a_write_of_another_job_survives_deletes_emptying_the_shared_folders(backend):
    storage = backend.output_storage
    rounds, failures = 300, []
    start = threading.Barrier(2)

    def delete_a_job_again_and_again():
        start.wait()
        for n in range(rounds):
            key = f"jobs/{JOB}/segments/{n}.mp4"
            storage.put_bytes(key, b"x")
            storage.delete(key)  # prunes jobs/{JOB}/segments, jobs/{JOB} and maybe jobs/

    def write_another_job():
        start.wait()
        for n in range(rounds):
            key = f"jobs/{OTHER}-{n}/segments/0.mp4"
            try:
                storage.put_bytes(key, b"y")
                assert storage.get_bytes(key) == b"y"
                storage.delete(key)  # so jobs/ is often empty for the other thread
            except Exception as exc:  # collected: an assert in a thread is lost
                failures.append(repr(exc))

    threads = [threading.Thread(target=delete_a_job_again_and_again),
               threading.Thread(target=write_another_job)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert list(storage.root.iterdir()) == []


class DeletedMeanwhile(FilesystemStorage):
    """The worst interleaving, made certain: another job's delete prunes the
    (still empty) folder after this write made it and before the file is placed."""

    pruned = 0

    def _place(self, tmp, dest, *, if_absent):
        if not self.pruned:
            self.pruned += 1
            self._prune(dest.parent)  # what a concurrent delete's pruning does
            assert not dest.parent.exists()
        super()._place(tmp, dest, if_absent=if_absent)


def test_a_write_whose_folder_is_pruned_before_it_lands_makes_it_again(settings):
    from local_adapters.backend import make_signer

    storage = DeletedMeanwhile(settings.data_dir, "out", signer=make_signer(settings))
    key = f"jobs/{OTHER}/segments/0.mp4"
    storage.put_bytes(key, b"y")
    assert (storage.pruned, storage.get_bytes(key)) == (1, b"y")
    storage.pruned = 0
    storage.adopt_file(f"jobs/{JOB}/poster.jpg", _temp_with(storage, b"p"), if_absent=True)
    assert (storage.pruned, storage.get_bytes(f"jobs/{JOB}/poster.jpg")) == (1, b"p")


def _temp_with(storage, data: bytes):
    tmp = storage.temp_file()
    tmp.write_bytes(data)
    return tmp
