"""A recording of a whole broadcast multiplex: the streams of the film's
programme are its own, the other channels' are marked as another programme's."""

from pathlib import Path

import av

from stereo_media.source_streams import file_streams
from stereo_media.testing.media import (
    make_broadcast_recording,
    make_multiplex_recording,
    make_video,
)
from stereo_media.ts_program_map import read_programme_map


def test_a_recorded_multiplex_marks_the_other_programmes_streams(tmp_path: Path):
    recording = make_multiplex_recording(tmp_path / "mux.ts")
    with av.open(str(recording)) as container:
        pids = [s.id for s in container.streams]
        streams = file_streams(container).streams
    assert read_programme_map(recording).programmes() == [set(pids[:2]), set(pids[2:])]
    assert [(s.kind, s.other_programme) for s in streams] == [
        ("audio", False), ("video", True), ("audio", True)]
    # one programme (every other recording): nothing marked
    clean = make_video(tmp_path / "clean.mp4", seconds=1.0, size=(64, 48))
    single = make_broadcast_recording(clean, tmp_path / "single.ts")
    with av.open(str(single)) as container:
        assert not any(s.other_programme for s in file_streams(container).streams)
    assert len(read_programme_map(single).programmes()) == 1
