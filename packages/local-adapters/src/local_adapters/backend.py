"""Wiring: every port of the local embedded backend from BackendSettings."""

from __future__ import annotations

from pathlib import Path

from shared_types.data_plane import MAX_RECEIVES
from shared_types.job_changes import UNANNOUNCED
from shared_types.notification_routes import NOTIFICATION_ROUTES
from shared_types.ports import QUEUE_NAMES, Backend
from shared_types.settings import BackendSettings
from shared_types.temp_sweep import sweep_stale_temp

from local_adapters.db import Database
from local_adapters.doorbell import Doorbell
from local_adapters.heartbeats import SqliteSegmentHeartbeatStore
from local_adapters.job_changes import RungJobChanges
from local_adapters.jobs import SqliteJobStore
from local_adapters.notifications import NotificationRule, Notifier
from local_adapters.queue import SqliteQueue
from local_adapters.reassembly import SqliteReassemblyLock
from local_adapters.segments import SqliteSegmentCompletionStore, SqliteSegmentStatusStore
from local_adapters.signing import UrlSigner, load_or_create_secret
from local_adapters.storage import FilesystemStorage

DB_NAME = "state.sqlite3"
SECRET_NAME = "signing.key"


def make_signer(settings: BackendSettings) -> UrlSigner:
    """The URL signer for ``settings`` (secret from settings, else data_dir/signing.key)."""
    data_dir = Path(settings.data_dir)
    secret = (settings.signing_secret.encode() if settings.signing_secret
              else load_or_create_secret(data_dir / SECRET_NAME))
    return UrlSigner(secret, settings.public_base_url)


def build_backend(settings: BackendSettings, *,
                  max_receives: int = MAX_RECEIVES) -> Backend:
    """Every port on SQLite (``data_dir/state.sqlite3``) and folders (``data_dir/buckets``).

    Object writes raise S3-shaped events routed by
    ``shared_types.notification_routes.NOTIFICATION_ROUTES``. Safe to call from several
    processes on the same data_dir. Raises DatabaseBusyError if SQLite is locked.
    """
    data_dir = Path(settings.data_dir)
    db = Database(data_dir / DB_NAME)
    # uploads cut short by a killed process (temp file + rename never happened)
    sweep_stale_temp(data_dir / "tmp", ("upload-",))
    doorbell = Doorbell.for_database(db.path)  # waiting receives wake on a send
    changes = RungJobChanges(doorbell) if doorbell is not None else None
    queues = {name: SqliteQueue(db, name, max_receives=max_receives, doorbell=doorbell)
              for name in QUEUE_NAMES}
    notifier = Notifier([
        NotificationRule(route.bucket_name(settings), queues[route.queue],
                         prefix=route.prefix, suffix=route.suffix)
        for route in NOTIFICATION_ROUTES
    ])
    signer = make_signer(settings)
    storages = [FilesystemStorage(data_dir, bucket, signer=signer, notifier=notifier,
                                  expire_after_s=settings.segment_retention_s)
                for bucket in (settings.input_bucket, settings.output_bucket)]
    for storage in storages:  # segments of jobs that ended while nothing ran
        storage.expiry.sweep(storage)
        storage.abort_abandoned()  # uploads left unfinished a day ago (a closed tab)
    return Backend(
        jobs=SqliteJobStore(db, changes),
        completions=SqliteSegmentCompletionStore(db),
        segment_status=SqliteSegmentStatusStore(db),
        reassembly=SqliteReassemblyLock(db),
        chunking_queue=queues["chunking"],
        video_queue=queues["video-worker"],
        segment_output_queue=queues["segment-output"],
        reassembly_queue=queues["reassembly"],
        input_storage=storages[0],
        output_storage=storages[1],
        heartbeats=SqliteSegmentHeartbeatStore(db),
        job_changes=changes or UNANNOUNCED,  # without a doorbell, waiters poll
    )
