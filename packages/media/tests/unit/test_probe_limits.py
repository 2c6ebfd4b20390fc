from stereo_media.probe_limits import DEFAULT_LIMITS, ProbeLimits


def test_a_picture_is_refused_only_beyond_either_side():
    limits = ProbeLimits(max_width=100, max_height=50)
    assert not limits.refuses_size(100, 50)
    assert limits.refuses_size(101, 50) and limits.refuses_size(100, 51)


def test_the_default_is_8k_uhd():
    assert (DEFAULT_LIMITS.max_width, DEFAULT_LIMITS.max_height) == (7680, 4320)
    assert not DEFAULT_LIMITS.refuses_size(7680, 4320)
    assert DEFAULT_LIMITS.refuses_size(8192, 4320)


def test_a_refusal_names_the_first_limit_a_video_is_beyond():
    limits = ProbeLimits(max_bytes=1000, max_width=100, max_height=50, max_fps=60,
                         max_frames=500, max_duration_s=10.0)
    assert limits.refusal(width=100, height=50, size_bytes=1000, fps=60, frames=500,
                          duration_s=10.0) is None
    assert "too large" in limits.refusal(width=100, height=50, size_bytes=1001)
    assert "larger than the allowed 100x50" in limits.refusal(width=101, height=50)
    assert "at most 60 are allowed" in limits.refusal(width=10, height=10, fps=61)
    assert "at most 500 are allowed" in limits.refusal(width=10, height=10, frames=501)
    assert "too long (0.2 min)" in limits.refusal(width=10, height=10, duration_s=11.0)
    assert limits.refusal(width=10, height=10) is None  # unknown facts are not refused
