"""StageClock: busy and CPU seconds per stage, and the codec threads' remainder."""

import threading
import time

from stereo_inference.stage_clock import CODEC_THREADS, StageClock, describe


def spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_work_counts_as_busy_and_cpu_but_waiting_only_as_busy():
    clock = StageClock()
    with clock.stage("render"):
        spin(0.05)
    with clock.stage("encode"):
        threading.Event().wait(0.05)  # waits: busy, no CPU
    report = clock.report()
    assert report["render"]["cpu_s"] >= 0.04
    assert report["render"]["busy_s"] >= report["render"]["cpu_s"] - 0.01
    assert report["encode"]["busy_s"] >= 0.04
    assert report["encode"]["cpu_s"] < 0.03


def test_stages_add_up_across_threads_and_other_threads_are_the_codecs():
    clock = StageClock()

    def depth_work():
        for _ in range(3):
            with clock.stage("depth"):
                spin(0.02)

    worker = threading.Thread(target=depth_work)
    worker.start()
    worker.join()
    beside = threading.Thread(target=spin, args=(0.05,))  # like an x264 thread
    beside.start()
    beside.join()
    report = clock.report()
    assert report["depth"]["cpu_s"] >= 0.05
    assert report[CODEC_THREADS]["cpu_s"] >= 0.04


def test_the_line_lists_the_busiest_stage_first_and_codec_threads_last():
    line = describe({"encode": {"busy_s": 1.0, "cpu_s": 0.5, "starved_s": 0.25},
                     "render": {"busy_s": 2.0, "cpu_s": 1.5},
                     CODEC_THREADS: {"busy_s": 0.0, "cpu_s": 3.0}})
    assert line == ("busy/CPU s per stage (starved/blocked): render 2.00/1.50, "
                    "encode 1.00/0.50 (0.25/0.00), codec threads -/3.00")


def test_waits_are_reported_as_starved_and_blocked_beside_the_busy_time():
    clock = StageClock()
    with clock.stage("render"):
        pass
    with clock.idle("render", "starved"):
        threading.Event().wait(0.03)
    with clock.idle("encode", "blocked"):  # a stage with waits and no work yet
        pass
    report = clock.report()
    assert report["render"]["starved_s"] >= 0.03
    assert report["render"]["busy_s"] < report["render"]["starved_s"]  # not busy time
    assert "blocked_s" not in report["render"]
    assert report["encode"]["busy_s"] == 0.0 and report["encode"]["blocked_s"] >= 0
