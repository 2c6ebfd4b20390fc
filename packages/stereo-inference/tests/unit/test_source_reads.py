"""Every read of a user's file in the engine and in the media modules it uses
names the formats it may be (#52, finding 12): read from the source
(``stereo_media.testing.source_reads``), so a new opener that forgets cannot
land; the control shows the scan finds one that forgets."""

from __future__ import annotations

import ast
from pathlib import Path

import stereo_media
from stereo_media.testing.source_reads import unguarded, unguarded_reads

import stereo_inference

NOT_FFMPEG = ("iw3.py",)  # the -i of iw3's own command line, not of ffmpeg's


def test_every_read_of_a_file_names_its_formats():
    roots = [Path(stereo_media.__file__).parent, Path(stereo_inference.__file__).parent]
    assert unguarded_reads(roots, skip=NOT_FFMPEG) == {}


def test_the_scan_finds_a_read_that_forgets():  # the control
    forgetful = ast.parse('import av\nav.open(str(p))\nargs = ["-protocol_whitelist", "file", '
                          '"-i", str(p)]\nok = [*file_only(), "-i", str(p)]\n')
    assert unguarded(forgetful) == [2, 3]
