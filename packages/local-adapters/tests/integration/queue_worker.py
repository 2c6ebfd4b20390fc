"""A queue consumer process for the multi-process test (run as a script, not collected).

Usage: queue_worker.py DB_PATH QUEUE OUT_FILE GO_FILE. Waits for GO_FILE (so all
workers start together), then receives, extends and deletes messages (with 2 ms
of pretend work each) until the queue is empty; bodies starting ``fail-`` are dead-lettered
on purpose. Each processed body is appended to OUT_FILE before its delete. Waits with the
backend's doorbell (the killed worker leaves its socket file behind).
"""

import os
import sys
import time
from pathlib import Path

from shared_types.errors import LeaseLostError

from local_adapters.db import Database
from local_adapters.doorbell import Doorbell
from local_adapters.queue import SqliteQueue


def main(db_path: str, queue_name: str, out_file: str, go_file: str) -> int:
    while not Path(go_file).exists():
        time.sleep(0.01)
    queue = SqliteQueue(Database(Path(db_path)), queue_name, max_receives=5,
                        doorbell=Doorbell.for_database(Path(db_path)))
    fd = os.open(out_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    while True:
        messages = queue.receive(max_messages=10, wait_s=0.5, visibility_s=2)
        if not messages:
            stats = queue.stats()
            if stats.visible == 0 and stats.in_flight == 0:
                return 0
            continue
        for msg in messages:
            try:
                queue.extend(msg, 3)
            except LeaseLostError:
                continue  # another consumer owns it now
            if msg.body.startswith("fail-"):
                queue.dead_letter(msg, "failed on purpose")
                continue
            time.sleep(0.002)
            os.write(fd, f"{msg.body}\n".encode())
            queue.delete(msg)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
