import shared_types


def test_package_imports_and_says_what_it_is():
    assert shared_types.__doc__
