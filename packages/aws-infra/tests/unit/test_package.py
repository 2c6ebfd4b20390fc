import stereo_spot_deploy


def test_package_imports_and_says_what_it_is():
    assert stereo_spot_deploy.__doc__
