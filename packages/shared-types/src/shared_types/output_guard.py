"""Never over a source: the checks every command makes before it writes an output.

An output path may name the input itself in many spellings: the same path,
``./a.mp4``, an absolute or relative path through other folders, a symbolic
link to it, or a hard link (another name of the same inode). Each of them,
written, would destroy the user's original. ``check_output`` refuses them all
by asking the filesystem (``os.path.samefile``: same device and inode) as well
as comparing resolved paths (a dangling or not-yet-existing output).
"""

from __future__ import annotations

import os
from pathlib import Path

from shared_types.errors import InvalidRequestError


class OutputIsInputError(InvalidRequestError):
    """The output path is the input, or another name of the same file."""

    code = "output_is_input"


class OutputExistsError(InvalidRequestError):
    """The output already exists and overwriting was not asked for."""

    code = "output_exists"


def is_same_file(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name one file: the same resolved path, or (both
    existing) the same device and inode, which catches hard links too."""
    a, b = Path(a), Path(b)
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist: resolved paths already compared
        return False


def check_output(source: Path, output: Path, *, overwrite: bool = False) -> None:
    """Refuse to write ``output`` for ``source`` when it would replace the source
    (OutputIsInputError, whatever ``overwrite`` says) or an existing file while
    ``overwrite`` is false (OutputExistsError). A folder at ``output`` is refused too."""
    source, output = Path(source), Path(output)
    if is_same_file(source, output):
        raise OutputIsInputError(
            f"the output {output} is the input file {source}: refusing to write over "
            "the source; choose another output path")
    if output.is_dir():
        raise OutputExistsError(f"the output {output} is a folder; give a file name")
    if (output.exists() or output.is_symlink()) and not overwrite:
        raise OutputExistsError(
            f"the output {output} already exists; pass --overwrite to replace it")
