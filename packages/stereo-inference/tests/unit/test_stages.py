import threading

import numpy as np
import pytest

from stereo_inference.decode import FrameBatch
from stereo_inference.stage_clock import StageClock
from stereo_inference.stages import run_stages


def batches(n, size=2):
    for i in range(n):
        frames = np.full((size, 4, 4, 3), i, np.uint8)
        yield FrameBatch(depth_rgb=frames, eyes=frames, pts=[i * size + k for k in range(size)],
                         durations=[1] * size)


class RecordingEncoder:
    def __init__(self, fail_on=None):
        self.written, self.fail_on = [], fail_on
        self.thread = None

    def write(self, frames, fmt, pts, durations, captions=None):
        self.thread = threading.current_thread()
        if len(self.written) == self.fail_on:
            raise OSError("disk full")
        self.written.append((int(frames[0, 0, 0, 0]), fmt, list(pts)))


def test_every_batch_is_rendered_then_encoded_in_order_off_the_callers_thread():
    encoder, seen = RecordingEncoder(), []
    count = run_stages(batches(3), lambda b: b.eyes + 1, encoder, "rgb24", total=6,
                       progress=lambda done, total: seen.append((done, total)))
    assert count == 6
    assert encoder.written == [(1, "rgb24", [0, 1]), (2, "rgb24", [2, 3]),
                               (3, "rgb24", [4, 5])]
    assert seen == [(2, 6), (4, 6), (6, 6)]
    assert encoder.thread is not threading.current_thread()


def test_an_encoder_failure_stops_rendering_and_is_raised_to_the_caller():
    rendered = []

    def render(batch):
        rendered.append(batch)
        return batch.eyes

    with pytest.raises(OSError, match="disk full"):
        run_stages(batches(50), render, RecordingEncoder(fail_on=1), "rgb24", total=None,
                   progress=None)
    assert len(rendered) < 50


def test_a_render_failure_is_raised_and_the_encoder_thread_ends():
    def render(batch):
        raise ValueError("bad batch")

    with pytest.raises(ValueError, match="bad batch"):
        run_stages(batches(3), render, RecordingEncoder(), "rgb24", total=None, progress=None)
    assert not [t for t in threading.enumerate() if t.name == "encode"]


def test_the_depth_stage_runs_on_every_batch_in_order_in_its_own_thread():
    estimated, threads = [], set()

    def estimate(batch):
        threads.add(threading.current_thread())
        estimated.append(batch.pts[0])
        batch.depth = batch.pts[0]

    def render(batch):
        assert batch.depth == batch.pts[0]  # the depth stage ran first
        return batch.eyes

    encoder = RecordingEncoder()
    assert run_stages(batches(5), render, encoder, "rgb24", total=None, progress=None,
                      estimate=estimate) == 10
    assert estimated == [0, 2, 4, 6, 8]
    assert threading.current_thread() not in threads
    assert [w[2][0] for w in encoder.written] == [0, 2, 4, 6, 8]


def test_a_depth_failure_is_raised_to_the_caller_and_stops_the_stage():
    def estimate(batch):
        if batch.pts[0] == 4:
            raise ValueError("bad depth")

    with pytest.raises(ValueError, match="bad depth"):
        run_stages(batches(50), lambda b: b.eyes, RecordingEncoder(), "rgb24", total=None,
                   progress=None, estimate=estimate)
    assert not [t for t in threading.enumerate() if t.name == "depth"]


def test_a_render_failure_stops_the_depth_stage_and_closes_the_source():
    closed = []

    def source():
        try:
            yield from batches(50)
        finally:
            closed.append(True)

    def render(batch):
        raise RuntimeError("render broke")

    with pytest.raises(RuntimeError, match="render broke"):
        run_stages(source(), render, RecordingEncoder(), "rgb24", total=None, progress=None,
                   estimate=lambda b: None)
    assert closed == [True]
    assert not [t for t in threading.enumerate() if t.name == "depth"]


def test_several_renderers_work_at_once_and_the_encoder_gets_batches_in_order():
    """With renderers=2 batches 0 and 1 are in render together (each waits for
    the other to arrive), and batch 0, finishing last, still reaches the
    encoder first."""
    meet, one_done, threads = threading.Barrier(2, timeout=30), threading.Event(), set()

    def render(batch):
        index = batch.pts[0] // 2
        threads.add(threading.current_thread().name)
        if index in (0, 1):
            meet.wait()
        if index == 0:
            assert one_done.wait(timeout=30)
        out = batch.eyes + 1
        if index == 1:
            one_done.set()
        return out

    encoder = RecordingEncoder()
    count = run_stages(batches(6), render, encoder, "rgb24", total=12, progress=None,
                       estimate=lambda b: None, renderers=2)
    assert count == 12
    assert [w[0] for w in encoder.written] == [1, 2, 3, 4, 5, 6]
    assert len(threads) == 2 and threading.current_thread().name not in threads


def test_a_failure_in_one_of_several_renderers_is_raised_and_every_thread_ends():
    def render(batch):
        if batch.pts[0] == 6:
            raise ValueError("bad batch")
        return batch.eyes

    with pytest.raises(ValueError, match="bad batch"):
        run_stages(batches(50), render, RecordingEncoder(), "rgb24", total=None,
                   progress=None, estimate=lambda b: None, renderers=3)
    assert not [t for t in threading.enumerate()
                if t.name in ("encode", "depth") or t.name.startswith("render")]


def test_the_finishing_step_runs_in_order_in_the_callers_thread_whatever_renders_first():
    """Batch 0 finishes rendering after batch 1 (renderers=2); the stateful
    finishing step (3D subtitles) still sees batch 0 first, and its output is
    what the encoder gets."""
    one_done = threading.Event()

    def render(batch):
        index = batch.pts[0] // 2
        if index == 0:
            assert one_done.wait(timeout=30)
        if index == 1:
            one_done.set()
        return batch.eyes + 1

    order, threads = [], set()

    def finish(frames, batch):
        order.append(batch.pts[0] // 2)
        threads.add(threading.current_thread())
        return frames + 10 * len(order)  # depends on what came before

    encoder = RecordingEncoder()
    run_stages(batches(4), render, encoder, "rgb24", total=8, progress=None,
               estimate=lambda b: None, renderers=2, finish=finish)
    assert order == [0, 1, 2, 3]
    assert threads == {threading.current_thread()}
    assert [w[0] for w in encoder.written] == [11, 22, 33, 44]


class SlowEncoder(RecordingEncoder):
    def write(self, frames, fmt, pts, durations, captions=None):
        threading.Event().wait(0.05)  # the encoder's work
        super().write(frames, fmt, pts, durations, captions)


def test_a_slow_encoder_shows_as_the_render_blocked_not_starved():
    clock = StageClock()
    run_stages(batches(10), lambda b: b.eyes, SlowEncoder(), "rgb24", total=None,
               progress=None, clock=clock)
    render = clock.report()["render"]
    # the last batch is handed on only once the encoder has taken its eighth
    # (0.35 s in), and the render itself takes next to nothing
    assert render["blocked_s"] >= 0.1
    assert render["starved_s"] < render["blocked_s"]


def test_a_slow_depth_stage_shows_as_the_render_and_encoder_starved():
    clock = StageClock()
    run_stages(batches(6), lambda b: b.eyes, RecordingEncoder(), "rgb24", total=None,
               progress=None, estimate=lambda b: threading.Event().wait(0.05), clock=clock)
    report = clock.report()
    assert report["render"]["starved_s"] >= 0.2  # six batches of depth, one in hand
    assert report["render"]["blocked_s"] < report["render"]["starved_s"]
    assert report["encode"]["starved_s"] >= 0.2
    assert report["depth"]["blocked_s"] < report["render"]["starved_s"]
