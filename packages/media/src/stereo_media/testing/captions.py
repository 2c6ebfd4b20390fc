"""Test media with closed captions, and what a player reads back.

``make_captioned_video`` writes H.264 whose pictures carry a CEA-608 pop-on
caption as ATSC A/53 SEI (what a US broadcast recording carries), with AAC
audio; ``caption_cues`` reads any file's A/53 captions back as timed text with
FFmpeg's own caption decoder (the ``subcc`` output of its ``movie`` source), on
the timeline a player shows: seconds since the first picture.
``make_caption_track_video`` writes the same caption as a MOV's ``c608`` track
instead (its pictures carry none), and ``track_cues`` reads a file's first
subtitle stream back as text.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from stereo_media.a53 import caption_sei
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.sei import START_CODE
from stereo_media.subtitle_cues import TextCue, parse_srt
from stereo_media.testing.teletext import odd_parity

NULL_PAIR = (0x80, 0x80)  # "no caption data" (two zero bytes with odd parity)
FIELD_ONE = 0xFC  # marker bits, cc_valid, cc_type 0 (CEA-608 field 1)
RESUME_LOADING, END_OF_CAPTION, ERASE_DISPLAYED = (0x14, 0x20), (0x14, 0x2F), (0x14, 0x2C)
ROW_15 = (0x14, 0x70)  # preamble address code: row 15, column 0, white


def _pairs(text: str) -> list[tuple[int, int]]:
    """The byte pairs that load ``text`` as a pop-on caption and show it
    (control codes sent twice, as broadcasters do)."""
    codes = [RESUME_LOADING] * 2 + [ROW_15] * 2
    chars = text.encode("ascii") + (b"\x00" if len(text) % 2 else b"")
    codes += [(chars[i], chars[i + 1]) for i in range(0, len(chars), 2)]
    return codes + [END_OF_CAPTION] * 2


def make_captioned_video(path: Path, *, text: str = "HELLO WORLD", shown_at: float = 0.5,
                         hidden_at: float = 2.5, seconds: float = 4.0, fps: int = 30,
                         size: tuple[int, int] = (160, 96), gop: int = 30,
                         pix_fmt: str = "yuv420p") -> Path:
    """Write ``path`` (its suffix picks the container: .mp4, .ts, .mkv): ``seconds``
    of H.264 at ``fps`` with AAC, whose pictures carry ``text`` as a caption
    loaded from ``shown_at`` (shown once loaded, a few frames later) and erased
    at ``hidden_at``; every other picture carries null caption data, as a
    captioned channel's do; ``pix_fmt`` yuv420p10le makes it 10-bit. Returns ``path``."""
    frames = round(seconds * fps)
    pairs = {round(shown_at * fps) + i: p for i, p in enumerate(_pairs(text))}
    pairs.update({round(hidden_at * fps) + i: p for i, p in enumerate([ERASE_DISPLAYED] * 2)})
    with tempfile.TemporaryDirectory() as tmp:
        raw, captioned = Path(tmp) / "raw.h264", Path(tmp) / "captioned.h264"
        subprocess.run([
            ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
            "-i", f"testsrc2=size={size[0]}x{size[1]}:rate={fps}:duration={seconds}",
            "-c:v", "libx264", "-preset", "ultrafast", "-bf", "0", "-g", str(gop),
            "-pix_fmt", pix_fmt, "-f", "h264", str(raw)], check=True, timeout=120)
        out, picture = bytearray(), 0
        for nal in _nal_units(raw.read_bytes()):
            if nal[0] & 0x1F in (1, 5):  # a slice: one picture each (x264, no slices)
                a, b = pairs.get(picture, NULL_PAIR)
                out += START_CODE + caption_sei(bytes([FIELD_ONE, odd_parity(a), odd_parity(b)]))
                picture += 1
            out += START_CODE + nal
        if picture != frames:
            raise RuntimeError(f"expected {frames} pictures, found {picture}")
        captioned.write_bytes(bytes(out))
        subprocess.run([
            ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
            "-r", str(fps), "-i", str(captioned),
            "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}",
            "-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "aac", "-b:a", "64k",
            str(path)], check=True, timeout=120)
    return path


def _nal_units(annexb: bytes) -> list[bytes]:
    """The NAL units of an Annex B stream, start codes and trailing zeros removed."""
    starts = [m.end() for m in re.finditer(b"\x00\x00\x01", annexb)]
    units = []
    for i, start in enumerate(starts):
        end = starts[i + 1] - 3 if i + 1 < len(starts) else len(annexb)
        units.append(annexb[start:end].rstrip(b"\x00") if i + 1 < len(starts)
                     else annexb[start:end])
    return units


def caption_cues(path: Path) -> list[TextCue]:
    """The A/53 captions of ``path``'s first video stream as timed text, seconds
    since its first picture (none when it carries no captions)."""
    with tempfile.TemporaryDirectory() as tmp:
        srt = Path(tmp) / "captions.srt"
        done = subprocess.run([
            ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", f"movie=filename={_escaped(path)}[out0+subcc]",
            "-map", "0:s?", "-c:s", "srt", "-f", "srt", str(srt)],
            capture_output=True, timeout=120)
        if done.returncode != 0 or not srt.exists():
            return []
        return parse_srt(srt.read_text(encoding="utf-8"))


def make_caption_track_video(path: Path, *, text: str = "HELLO WORLD") -> Path:
    """Write a MOV at ``path`` whose captions (``text``, shown as
    :func:`make_captioned_video` shows it) are a CEA-608 track of their own
    (``c608``), its pictures stripped of theirs. Returns ``path``."""
    with tempfile.TemporaryDirectory() as tmp:
        captioned = make_captioned_video(Path(tmp) / "captioned.mp4", text=text)
        subprocess.run([
            ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", f"movie=filename={_escaped(captioned)}[out0+subcc]",
            "-i", str(captioned), "-map", "1:v", "-map", "1:a", "-map", "0:s",
            "-c", "copy", "-bsf:v", "filter_units=remove_types=6",  # no SEI left
            "-f", "mov", str(path)], check=True, timeout=120)
    return path


def track_cues(path: Path, track: int = 0) -> list[TextCue]:
    """Subtitle stream ``track`` of ``path`` as timed text (none when it has none)."""
    done = subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-i", str(path),
                           "-map", f"0:s:{track}?", "-f", "srt", "-"], capture_output=True,
                          timeout=120)
    return parse_srt(done.stdout.decode("utf-8", "replace")) if done.returncode == 0 else []


def _escaped(path: Path) -> str:
    """``path`` as a filter option value inside a filter graph (two levels of escaping)."""
    value = re.sub(r"([\\':])", r"\\\1", str(path))
    return re.sub(r"([\\'\[\],;])", r"\\\1", value)
