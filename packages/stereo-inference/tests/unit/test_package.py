import stereo_inference


def test_package_imports_and_says_what_it_is():
    assert stereo_inference.__doc__
