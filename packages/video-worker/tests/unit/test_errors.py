from shared_types.testing.error_tree import misclassified

from video_worker import errors


def test_every_error_is_permanent_or_transient_never_both():
    # A misconfigured worker must not fail jobs: its messages go to a healthy worker.
    assert misclassified(errors, neither=("ConfigurationError",)) == []
