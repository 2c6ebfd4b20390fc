"""Generate small real test videos with ffmpeg (no files are shipped)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from stereo_media.ffmpeg import ffmpeg_path


def make_video(
    path: Path,
    *,
    seconds: float = 2.0,
    size: tuple[int, int] = (160, 96),
    fps: int = 24,
    audio: bool = True,
    gop: int | None = None,
    pattern: str = "testsrc2",
    vfr: bool = False,
    interlaced: bool = False,
) -> Path:
    """Write an H.264 (+AAC) mp4 of a moving test pattern and return ``path``.

    ``gop`` sets the keyframe interval in frames (default: one per second);
    ``vfr`` drops every third frame so timestamps are irregular; ``interlaced``
    weaves the pattern, moving at twice ``fps``, into top-field-first frames
    coded as interlaced (a 1080i camcorder's or a broadcast's).
    """
    w, h = size
    rate = fps * 2 if interlaced else fps  # one field from each of two moments
    args = [ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", f"{pattern}=size={w}x{h}:rate={rate}:duration={seconds}"]
    if audio:
        args += ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}"]
    vf = ["tinterlace=mode=interleave_top", "setfield=tff"] if interlaced else []
    if vfr:
        vf.append("select='not(eq(mod(n\\,3)\\,2))'")
    if vf:
        args += ["-vf", ",".join(vf)] + (["-fps_mode", "vfr"] if vfr else [])
    args += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
             "-g", str(gop or fps), "-keyint_min", str(gop or fps), "-sc_threshold", "0"]
    if interlaced:
        args += ["-flags", "+ilme+ildct", "-x264-params", "tff=1", "-field_order", "tt"]
    if audio:
        args += ["-c:a", "aac", "-b:a", "64k", "-shortest"]
    args += ["-movflags", "+faststart", str(path)]
    subprocess.run(args, check=True, timeout=120)
    return path


def make_audio_only(path: Path, *, seconds: float = 1.0) -> Path:
    """Write an audio-only .mp4 (AAC): a file that is not a video."""
    subprocess.run(
        [ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
         f"sine=frequency=440:sample_rate=48000:duration={seconds}", "-c:a", "aac", str(path)],
        check=True, timeout=60,
    )
    return path


def _two_pictures(size: tuple[int, int], fps: int, seconds: float, *tones: int) -> list[str]:
    """ffmpeg arguments: input 0 a test pattern, input 1 a fractal, then a sine
    input per tone (Hz), all ``seconds`` long, and x264's settings for them."""
    w, h = size
    args = ["-f", "lavfi", "-i", f"testsrc2=size={w}x{h}:rate={fps}:duration={seconds}",
            "-f", "lavfi", "-i", f"mandelbrot=size={w}x{h}:rate={fps}"]
    for tone in tones:
        args += ["-f", "lavfi", "-i", f"sine=frequency={tone}:duration={seconds}"]
    return [*args, "-t", str(seconds), "-c:v", "libx264", "-preset", "ultrafast",
            "-pix_fmt", "yuv420p"]


def make_two_angle_video(path: Path, *, seconds: float = 2.0, size: tuple[int, int] = (96, 64),
                         fps: int = 24) -> Path:
    """Write an H.264 + AAC file (``path``'s suffix picks the container) with two
    video tracks, as a camera recording two angles does: the film (a test
    pattern) first, a second angle (a fractal) after it. Returns ``path``."""
    subprocess.run([
        ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
        *_two_pictures(size, fps, seconds, 300),
        "-map", "0:v", "-map", "1:v", "-map", "2:a", "-c:a", "aac", str(path)],
        check=True, timeout=120)
    return path


def make_multiplex_recording(path: Path, *, seconds: float = 2.0,
                             size: tuple[int, int] = (96, 64), fps: int = 25) -> Path:
    """Write an MPEG-TS at ``path`` as a recording of a whole broadcast multiplex
    carries two channels: programme 1 a test pattern with a 300 Hz tone,
    programme 2 a fractal with a 900 Hz tone (H.264 and MP2, in that stream
    order: video 1, audio 1, video 2, audio 2). Returns ``path``."""
    subprocess.run([
        ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
        *_two_pictures(size, fps, seconds, 300, 900),
        "-map", "0:v", "-map", "2:a", "-map", "1:v", "-map", "3:a", "-c:a", "mp2",
        "-program", "title=One:st=0:st=1", "-program", "title=Two:st=2:st=3",
        "-f", "mpegts", str(path)], check=True, timeout=120)
    return path


def make_broadcast_recording(source: Path, dest: Path,
                             subtitles: tuple[str, ...] = ("dvb_teletext", "dvb_subtitle"),
                             teletext: tuple[tuple, ...] = (("HELLO TELETEXT", 1.0, 2.5),),
                             described: tuple[tuple[str, int, int], ...] = ()) -> Path:
    """Copy ``source`` into an MPEG-TS at ``dest`` with a subtitle stream of each
    codec in ``subtitles``, as a DVB recording carries them. The teletext
    stream is a real service (``testing.teletext``): each ``(text, shown_s,
    hidden_s[, page])`` of ``teletext`` on its subtitle page (888 when not
    given, three hex digits: 0x777), seconds after the source's first packet,
    and an ordinary index page (100) at the start, which is not a subtitle;
    ``described``: what the programme map says of its pages, each
    ``(language, teletext_type, page)`` (type 2: subtitles, 5: for the hard of
    hearing). DVB subtitle streams hold placeholder packets every half second
    (nothing here encodes them; a copy only needs the stream). Returns ``dest``."""
    from fractions import Fraction

    import av  # PyAV: the ffmpeg CLI has no teletext or DVB subtitle encoder

    from stereo_media.testing.teletext import (
        clear_page,
        describe_teletext,
        index_page,
        subtitle_page,
    )

    pages = [(0.2, index_page())]
    for text, shown, hidden, *page in teletext:
        number = page[0] if page else 0x888
        pages += [(shown, subtitle_page(text, page=number)), (hidden, clear_page(page=number))]
    pages.sort(key=lambda page: page[0])
    with av.open(str(source)) as src, av.open(str(dest), "w", format="mpegts") as out:
        copies = {s.index: out.add_stream_from_template(s) for s in src.streams
                  if s.type in ("video", "audio")}
        subs = {codec: out.add_mux_stream(codec) for codec in subtitles}
        for sub in subs.values():
            sub.time_base = Fraction(1, 90000)
        teletext_stream = subs.pop("dvb_teletext", None)
        if teletext_stream is not None and described:
            teletext_stream.metadata["language"] = ",".join(lang for lang, _, _ in described)
        placeholders = list(subs.values())
        next_s, first = 0.0, None
        for packet in src.demux(*(src.streams[i] for i in copies)):
            if packet.dts is None:
                continue
            at = float(packet.pts * packet.time_base) if packet.pts is not None else next_s
            first = at if first is None else first
            packet.stream = copies[packet.stream.index]
            out.mux(packet)
            while teletext_stream is not None and pages and at - first >= pages[0][0]:
                shown, data = pages.pop(0)
                _mux_bytes(out, teletext_stream, data, first + shown)
            while at >= next_s:
                for sub in placeholders:
                    _mux_bytes(out, sub, bytes([0x20, 0x00]) + bytes(182), next_s)
                next_s += 0.5
        index = teletext_stream.index if teletext_stream is not None else None
    if index is not None and described:
        with av.open(str(dest)) as written:  # its PID, which the muxer chose
            pid = written.streams[index].id
        describe_teletext(dest, pid, [(kind, page) for _, kind, page in described])
    return dest


def _mux_bytes(out, stream, data: bytes, at_s: float) -> None:
    """Mux ``data`` as one packet of ``stream`` (90 kHz) presented at ``at_s``."""
    import av

    packet = av.Packet(data)
    packet.stream, packet.pts = stream, round(at_s * 90000)
    packet.dts = packet.pts
    out.mux(packet)
