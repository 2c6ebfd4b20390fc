import aws_adapters


def test_package_imports_and_says_what_it_is():
    assert aws_adapters.__doc__
