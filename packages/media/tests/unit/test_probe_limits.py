from stereo_media.probe_limits import DEFAULT_LIMITS, ProbeLimits


def test_a_picture_is_refused_only_beyond_either_side():
    limits = ProbeLimits(max_width=100, max_height=50)
    assert not limits.refuses_size(100, 50)
    assert limits.refuses_size(101, 50) and limits.refuses_size(100, 51)


def test_the_default_is_8k_uhd():
    assert (DEFAULT_LIMITS.max_width, DEFAULT_LIMITS.max_height) == (7680, 4320)
    assert not DEFAULT_LIMITS.refuses_size(7680, 4320)
    assert DEFAULT_LIMITS.refuses_size(8192, 4320)
