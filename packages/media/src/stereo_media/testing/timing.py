"""Test media whose timestamps pause, and what a player sees of their timing.

``make_paused_video`` writes a clip whose picture stops for a while (a jump in
its timestamps, as a camera that paused recording or an edit leaves) with a
white flash and a beep at the same known moment after the pause;
``make_joined_recording`` joins transport streams whose clocks differ;
``make_raw_stream`` writes a bare H.264/HEVC stream, which has no clock at all.
``damage_audio_frames`` breaks some of a transport stream's AAC frames, as a
weak broadcast signal does. ``frame_times``, ``flash_time`` and ``beep_time``
read any file back on the timeline a player shows: seconds since the file's start.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.timestamps import seconds

FLASH_LUMA = 200  # mean luma above this is the flash (the rest of the picture is grey)
BEEP_LEVEL = 0.3  # amplitude above this is the beep (the rest of the sound is silence)


def make_paused_video(path: Path, *, seconds: float = 4.0, fps: int | str = 24,
                      pause_at: float = 1.5, pause_s: float = 2.0, flash_at: float = 5.0,
                      size: tuple[int, int] = (64, 48), gop: int = 12) -> Path:
    """Write an H.264 + AAC mp4 of ``seconds`` of picture at ``fps`` whose
    timestamps jump by ``pause_s`` at ``pause_at`` (so it plays ``seconds +
    pause_s``), with one white frame and a 50 ms beep at ``flash_at`` (seconds
    of the played timeline, after the pause). Returns ``path``."""
    if not pause_at + pause_s <= flash_at < seconds + pause_s:
        raise ValueError("the flash must come after the pause, before the end")
    flash_src = flash_at - pause_s  # where the flash is before the jump is added
    video = (_flash_picture(size, fps, seconds, flash_src)
             + f",setpts='PTS+gte(T,{pause_at})*{pause_s}/TB'")
    subprocess.run([
        ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
        "-f", "lavfi", "-i", video, "-f", "lavfi", "-i", _beep(flash_at, seconds + pause_s),
        "-fps_mode", "vfr", *_encoding(gop), "-movflags", "+faststart", str(path)],
        check=True, timeout=120)
    return path


def make_joined_recording(path: Path, *, clocks: tuple[float, ...] = (100.0, 5.0),
                          part_s: float = 3.0, fps: int = 25, flash_at: float = 1.0,
                          size: tuple[int, int] = (64, 48), gop: int = 25) -> Path:
    """Write an MPEG-TS of recordings joined byte for byte (as ``cat`` joins a
    recorder's parts): one H.264 + AAC part of ``part_s`` seconds per entry of
    ``clocks``, each part's clock starting at that many seconds (a later part's
    lower clock jumps backwards, or forwards past the 33-bit wrap: how a
    demuxer reads it), the last part with a white frame and a 50 ms beep
    ``flash_at`` seconds into it. A player plays the parts one after another:
    the flash at ``(len(clocks) - 1) * part_s + flash_at``. Returns ``path``."""
    if not 0 <= flash_at < part_s:
        raise ValueError("the flash must fall inside the last part")
    data = bytearray()
    for i, clock in enumerate(clocks):
        last = i == len(clocks) - 1
        part = path.with_name(f"{path.stem}.part{i}.ts")
        subprocess.run([
            ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", _flash_picture(size, fps, part_s, flash_at if last else -1.0),
            "-f", "lavfi", "-i", _beep(flash_at if last else -1.0, part_s),
            *_encoding(gop), "-output_ts_offset", f"{clock:g}", "-f", "mpegts", str(part)],
            check=True, timeout=120)
        data += part.read_bytes()
        part.unlink()
    path.write_bytes(bytes(data))
    return path


def make_raw_stream(path: Path, *, codec: str = "h264", seconds: float = 3.0, fps: int = 30,
                    flash_at: float = 2.0, b_frames: bool = True,
                    size: tuple[int, int] = (64, 48), gop: int = 30) -> Path:
    """Write a raw elementary stream (no container, no timestamps: a Raspberry
    Pi camera's ``.h264``) of ``codec`` ("h264" or "hevc") at ``fps``, stated in
    its parameter sets, with one white frame at ``flash_at`` s; ``b_frames``
    codes pictures out of their display order. Returns ``path``."""
    encoder = {"h264": ["-c:v", "libx264", "-bf", "2" if b_frames else "0"],
               "hevc": ["-c:v", "libx265", "-x265-params",
                        f"log-level=error:bframes={2 if b_frames else 0}"]}[codec]
    subprocess.run([
        ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
        "-f", "lavfi", "-i", _flash_picture(size, fps, seconds, flash_at),
        *encoder, "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", str(gop),
        "-f", codec, str(path)], check=True, timeout=120)
    return path


def _flash_picture(size: tuple[int, int], fps: int | str, seconds: float, flash_at: float) -> str:
    """A lavfi grey picture with one white frame at ``flash_at`` s (none if negative)."""
    w, h = size
    rate = "24" if fps == 24 else f"({fps})"
    return (f"color=c=0x606060:size={w}x{h}:rate={fps}:duration={seconds},"
            f"drawbox=x=0:y=0:w={w}:h={h}:color=white:t=fill"
            f":enable='gte(t,{flash_at})*lt(t,{flash_at}+0.9/{rate})'")


def _beep(at: float, seconds: float) -> str:
    """A lavfi 48 kHz silence of ``seconds`` with a 50 ms beep at ``at`` s (none if negative)."""
    return (f"aevalsrc='0.8*sin(2*PI*1000*t)*gte(t,{at})*lt(t,{at}+0.05)'"
            f":s=48000:d={seconds}")


def _encoding(gop: int) -> list[str]:
    """H.264 with a keyframe every ``gop`` frames, AAC audio."""
    return ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
            "-g", str(gop), "-keyint_min", str(gop), "-sc_threshold", "0",
            "-c:a", "aac", "-b:a", "64k"]


def damage_audio_frames(source: Path, dest: Path, *, first_s: float, count: int = 3) -> Path:
    """Copy ``source`` into an MPEG-TS at ``dest`` (ADTS AAC, as broadcasts carry
    it) and zero the frame length in the ADTS header of ``count`` AAC frames from
    ``first_s`` on: a copy of that audio then fails, its decoder skips them."""
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-i", str(source),
                    "-c", "copy", "-f", "mpegts", str(dest)], check=True, timeout=120)
    data = bytearray(dest.read_bytes())
    where = _audio_bytes(data)  # the audio stream's bytes, each at its offset in the file
    stream = bytes(data[at] for at in where)
    first = round(first_s * 48000 / 1024)  # AAC frames of 1024 samples at 48 kHz
    frame, index = 0, 0
    while frame + 7 <= len(stream) and index < first + count:
        if stream[frame] != 0xFF or stream[frame + 1] >> 4 != 0xF:
            raise ValueError(f"no ADTS frame at byte {frame} of the audio")
        length = (stream[frame + 3] & 0x03) << 11 | stream[frame + 4] << 3 | stream[frame + 5] >> 5
        if index >= first:
            for k in (3, 4, 5):  # the 13-bit frame length: 0 is no frame at all
                data[where[frame + k]] &= (0xFC, 0x00, 0x1F)[k - 3]
        frame, index = frame + length, index + 1
    dest.write_bytes(bytes(data))
    return dest


def _audio_bytes(data: bytearray, pid: int = 0x101) -> list[int]:
    """File offsets of the elementary stream bytes of PES ``pid`` (FFmpeg's mpegts
    muxer gives the first audio stream 0x101), in order, PES headers skipped."""
    out: list[int] = []
    for at in range(0, len(data) - 187, 188):
        if ((data[at + 1] & 0x1F) << 8 | data[at + 2]) != pid or not data[at + 3] & 0x10:
            continue
        body = at + 4 + (1 + data[at + 4] if data[at + 3] & 0x20 else 0)  # adaptation field
        if data[at + 1] & 0x40:  # a PES starts here: skip its header
            body += 9 + data[body + 8]
        out.extend(range(body, at + 188))
    return out


def frame_times(path: Path) -> list[float]:
    """Each decoded video frame's time, seconds since the file's start."""
    import av

    with av.open(str(path)) as container:
        start = (container.start_time or 0) / 1e6
        return [seconds(f.pts, f.time_base) - start for f in container.decode(video=0)]


def flash_time(path: Path) -> float | None:
    """When the first white frame is shown, seconds since the file's start."""
    import av

    with av.open(str(path)) as container:
        start = (container.start_time or 0) / 1e6
        for frame in container.decode(video=0):
            if frame.to_ndarray(format="gray").mean() > FLASH_LUMA:
                return seconds(frame.pts, frame.time_base) - start
    return None


def beep_time(path: Path) -> float | None:
    """When the first audio sample of the beep plays, seconds since the file's start."""
    import av
    import numpy as np

    with av.open(str(path)) as container:
        start = (container.start_time or 0) / 1e6
        for frame in container.decode(audio=0):
            samples = np.abs(frame.to_ndarray()).max(axis=0)
            loud = np.flatnonzero(samples > BEEP_LEVEL)
            if loud.size:
                return (seconds(frame.pts, frame.time_base) + loud[0] / frame.sample_rate
                        - start)
    return None
