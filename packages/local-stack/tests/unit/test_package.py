import local_stack


def test_package_imports_and_says_what_it_is():
    assert local_stack.__doc__
