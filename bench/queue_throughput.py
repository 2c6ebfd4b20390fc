"""Queue throughput: send + receive + delete cycles per second, one process.

Measures the SQLite queue of ``local_adapters`` (a fresh database in a temp
folder, WAL, one write transaction per call) and the in-memory queue of
``shared_types.testing.memory`` in the same run as the reference, and prints
both rates and their ratio. Goal for SQLite: at least 1,000 cycles/s.

Usage: .venv/bin/python bench/queue_throughput.py [--cycles N] [--repeats R]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from local_adapters.db import Database
from local_adapters.queue import SqliteQueue
from shared_types.testing.memory import MemoryQueue


def cycles_per_second(queue, cycles: int) -> float:
    """Run ``cycles`` send+receive+delete round trips; return the rate."""
    start = time.perf_counter()
    for i in range(cycles):
        queue.send(f"message {i}")
        [msg] = queue.receive(visibility_s=30)
        queue.delete(msg)
    return cycles / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sqlite_queue = SqliteQueue(Database(Path(tmp) / "bench.sqlite3"), "bench")
        memory_queue = MemoryQueue("bench")
        cycles_per_second(sqlite_queue, 100)  # warm up: schema, page cache
        sqlite_rates = [cycles_per_second(sqlite_queue, args.cycles) for _ in range(args.repeats)]
        memory_rates = [cycles_per_second(memory_queue, args.cycles) for _ in range(args.repeats)]
    sqlite_best, memory_best = max(sqlite_rates), max(memory_rates)
    print(f"cycles per run: {args.cycles}, runs: {args.repeats} (best run reported)")
    print(f"sqlite queue : {sqlite_best:9.0f} cycles/s  (runs: "
          + ", ".join(f"{r:.0f}" for r in sqlite_rates) + ")")
    print(f"memory queue : {memory_best:9.0f} cycles/s  (reference)")
    print(f"ratio sqlite/memory: {sqlite_best / memory_best:.3f}")
    print("goal (>= 1000 cycles/s): " + ("met" if sqlite_best >= 1000 else "NOT met"))


if __name__ == "__main__":
    main()
