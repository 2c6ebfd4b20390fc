from shared_types import errors
from shared_types.testing.error_tree import misclassified


def test_every_shared_error_is_permanent_or_transient_never_both():
    # A lost conditional write is an outcome the caller handles where it happens.
    lost_writes = tuple(name for name, cls in vars(errors).items() if isinstance(cls, type)
                        and issubclass(cls, errors.ConditionFailedError))
    assert "LeaseLostError" in lost_writes
    assert misclassified(errors, neither=lost_writes) == []


def test_the_check_names_a_class_that_is_both():
    import types

    module = types.ModuleType("fake_errors")

    class BothError(errors.PermanentError, errors.TransientError):
        pass

    class LooseError(errors.StereoSpotError):
        pass

    BothError.__module__ = LooseError.__module__ = "fake_errors"
    module.BothError, module.LooseError = BothError, LooseError
    assert misclassified(module) == ["BothError is both permanent and transient",
                                     "LooseError is neither permanent nor transient"]
