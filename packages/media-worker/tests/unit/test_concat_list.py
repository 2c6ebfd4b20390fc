"""The concat list is ours alone: quoted paths, only files in our own folder."""

from __future__ import annotations

import pytest

from media_worker.concat import write_concat_list


def test_the_list_names_each_segment_in_order_with_quotes_escaped(tmp_path):
    segs = [tmp_path / "00000.mp4", tmp_path / "it's 1.mp4"]
    text = write_concat_list(segs, tmp_path / "list.txt").read_text()
    lines = text.splitlines()
    assert lines[0] == "ffconcat version 1.0"
    assert lines[1] == f"file '{(tmp_path / '00000.mp4').resolve()}'"
    assert lines[2] == "file '" + str((tmp_path / "it").resolve()) + "'\\''s 1.mp4'"


@pytest.mark.parametrize("outside", ["/etc/passwd", "../escape.mp4"])
def test_a_path_outside_our_folder_is_refused(tmp_path, outside):
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(ValueError, match="not one of our temporary files"):
        write_concat_list([work / "00000.mp4", work / outside], work / "list.txt")


def test_an_empty_list_is_refused(tmp_path):
    with pytest.raises(ValueError, match="nothing"):
        write_concat_list([], tmp_path / "list.txt")
