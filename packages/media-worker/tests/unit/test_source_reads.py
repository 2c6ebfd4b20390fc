"""Every read of a user's file in media-worker names the formats it may be
(#52: every demuxer a worker opens gets a whitelist); the scan and its
control live in ``stereo_media.testing.source_reads``."""

from pathlib import Path

from stereo_media.testing.source_reads import unguarded_reads

import media_worker


def test_every_read_of_a_file_names_its_formats():
    assert unguarded_reads([Path(media_worker.__file__).parent]) == {}
