import web_ui


def test_package_imports_and_says_what_it_is():
    assert web_ui.__doc__
