"""The frame-packing SEI the engine writes where its encoder cannot (x265,
NVENC) is the one FFmpeg's own bitstream parser reads, in H.264 and HEVC."""

import subprocess
from pathlib import Path

import pytest

from shared_types.ffmpeg import ffmpeg_path
from shared_types.frame_packing import frame_packing_sei
from shared_types.sei import START_CODE, with_sei
from shared_types.testing.media_facts import frame_packing_arrangements


def _annexb(path: Path, encoder: str) -> bytes:
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc2=size=64x48:rate=10:duration=1", "-c:v", encoder,
                    "-x265-params", "log-level=none", "-g", "5", str(path)],
                   check=True, timeout=60)
    return path.read_bytes()


@pytest.mark.parametrize(("encoder", "suffix", "hevc"), [("libx264", ".h264", False),
                                                          ("libx265", ".hevc", True)])
@pytest.mark.parametrize(("packing", "kind"), [("sbs", 3), ("tb", 4)])
def test_the_sei_reads_back_as_the_arrangement(tmp_path, encoder, suffix, hevc, packing, kind):
    plain = tmp_path / f"plain{suffix}"
    data = _annexb(plain, encoder)
    assert frame_packing_arrangements(plain) == []
    # the SEI before the first slice of the first picture (after its parameter sets)
    marked = tmp_path / f"marked{suffix}"
    marked.write_bytes(with_sei(data, frame_packing_sei(packing, hevc=hevc), hevc=hevc))
    assert [k for _, k in frame_packing_arrangements(marked)] == [kind]
    assert START_CODE + frame_packing_sei(packing, hevc=hevc) in marked.read_bytes()


def test_only_packed_layouts_have_an_arrangement():
    with pytest.raises(KeyError):
        frame_packing_sei("anaglyph")
