"""Several processes share one SQLite queue while one of them is SIGKILLed mid-way."""

import signal
import subprocess
import sys
import time
from pathlib import Path

from local_adapters.db import Database
from local_adapters.queue import SqliteQueue

MESSAGES = 2000
WORKERS = 4
WORKER_SCRIPT = Path(__file__).with_name("queue_worker.py")


def processed_lines(paths: list[Path]) -> list[str]:
    lines: list[str] = []
    for path in paths:
        if path.exists():
            lines += path.read_text().splitlines()
    return lines


def test_messages_survive_a_killed_consumer_and_none_are_lost(tmp_path):
    db = Database(tmp_path / "state.sqlite3")
    queue = SqliteQueue(db, "stress", max_receives=5)
    bodies = [f"fail-{i}" if i % 100 == 7 else f"msg-{i}" for i in range(MESSAGES)]
    for body in bodies:
        queue.send(body)
    outs = [tmp_path / f"worker-{n}.txt" for n in range(WORKERS)]
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, str(WORKER_SCRIPT), str(db.path), "stress",
                               str(out), str(go)]) for out in outs]
    try:
        go.touch()
        deadline = time.monotonic() + 60
        while len(processed_lines(outs[:1])) < 150 and time.monotonic() < deadline:
            assert procs[0].poll() is None, "the victim finished before it could be killed"
            time.sleep(0.02)
        victim_done = len(processed_lines(outs[:1]))
        procs[0].send_signal(signal.SIGKILL)
        codes = [p.wait(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert codes[0] == -signal.SIGKILL
    assert codes[1:] == [0] * (WORKERS - 1)
    assert 150 <= victim_done < MESSAGES

    processed = processed_lines(outs)
    expected_ok = {b for b in bodies if b.startswith("msg-")}
    expected_failed = {b for b in bodies if b.startswith("fail-")}
    assert set(processed) == expected_ok, "a message was lost or invented"
    dead = queue.dead_letters(limit=MESSAGES)
    assert sorted(m.body for m in dead) == sorted(expected_failed)
    assert all(queue.dead_letter_reason(m.message_id) == "failed on purpose" for m in dead)
    stats = queue.stats()
    assert (stats.visible, stats.in_flight) == (0, 0)
    assert db.integrity_check() == "ok"
