"""The media toolkit: the ffmpeg binary, stream facts, mux, MP4/stereo boxes,
HDR, subtitles, teletext."""
