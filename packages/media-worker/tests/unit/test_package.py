import media_worker


def test_package_imports_and_says_what_it_is():
    assert media_worker.__doc__
