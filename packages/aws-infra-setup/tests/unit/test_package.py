import aws_infra_setup


def test_package_imports_and_says_what_it_is():
    assert aws_infra_setup.__doc__
