from shared_types.testing.error_tree import misclassified

from stereo_media import errors


def test_every_error_is_permanent_or_transient_never_both():
    assert misclassified(errors) == []
