"""What a killed conversion leaves beside its output is removed, and nothing else."""

from stereo_inference.engine_process import _remove_partials
from stereo_inference.runtime import partial_path


def test_a_killed_conversions_leftovers_go_and_its_neighbours_stay(tmp_path):
    out = tmp_path / "seg.mp4"
    partial = partial_path(out)
    leftovers = [partial, partial.with_name(partial.stem + ".video.mp4"),
                 tmp_path / ".seg.continuous.ts", tmp_path / "seg.mp4.comfort.json"]
    neighbours = [tmp_path / "seg2.mp4", tmp_path / ".seg2.partial.mp4", tmp_path / "input.video"]
    for path in leftovers + neighbours:
        path.write_bytes(b"x")
    _remove_partials(out)
    assert [p for p in leftovers if p.exists()] == []
    assert all(p.exists() for p in neighbours)  # the control: another output's files stay
