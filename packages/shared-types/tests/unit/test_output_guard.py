"""Never over a source: every spelling of the input is refused as an output."""

import os
from pathlib import Path

import pytest

from shared_types.output_guard import (
    OutputExistsError,
    OutputIsInputError,
    check_output,
    is_same_file,
)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    path = tmp_path / "a.mp4"
    path.write_bytes(b"original")
    return path


def _spellings(source: Path) -> dict[str, Path]:
    folder = source.parent
    (folder / "link.mp4").symlink_to(source)
    os.link(source, folder / "hard.mp4")
    return {
        "same path": source,
        "dot slash": Path("./a.mp4"),
        "relative through a sub-folder": Path("sub/../a.mp4"),
        "absolute": source.resolve(),
        "symbolic link": folder / "link.mp4",
        "hard link": folder / "hard.mp4",
    }


def test_every_other_name_of_the_input_is_refused_even_with_overwrite(source, monkeypatch):
    monkeypatch.chdir(source.parent)
    for name, output in _spellings(source).items():
        for overwrite in (False, True):
            with pytest.raises(OutputIsInputError, match="is the input file"):
                check_output(Path("a.mp4"), output, overwrite=overwrite)
            assert source.read_bytes() == b"original", name


def test_a_copy_of_the_input_is_another_file(source):
    copy = source.with_name("copy.mp4")
    copy.write_bytes(source.read_bytes())
    assert not is_same_file(source, copy)  # negative control: same bytes, another inode
    assert is_same_file(source, source.with_name("hard.mp4")) is False  # not there yet


def test_an_existing_output_is_kept_unless_overwrite_is_given(source):
    out = source.with_name("out.mp4")
    check_output(source, out)  # absent: fine
    out.write_bytes(b"earlier result")
    with pytest.raises(OutputExistsError, match="--overwrite"):
        check_output(source, out)
    check_output(source, out, overwrite=True)
    assert out.read_bytes() == b"earlier result"  # the check itself writes nothing


def test_a_folder_is_no_output_file(source):
    with pytest.raises(OutputExistsError, match="folder"):
        check_output(source, source.parent / "sub", overwrite=True)
