"""Check a package's ``errors`` module against the pipeline's one error tree.

Every error a package defines is permanent or transient, never both, so the
consumer can classify any failure. A class may be neither only when it is a
base that others in the module refine, or when it is named in ``neither``
(with the reason in its docstring: e.g. a lost conditional write, handled
where it happens, or a misconfigured worker that must not fail jobs).
"""

from __future__ import annotations

import inspect
from types import ModuleType

from shared_types.errors import PermanentError, StereoSpotError, TransientError


def misclassified(module: ModuleType, *, neither: tuple[str, ...] = ()) -> list[str]:
    """Sentences naming each error class of ``module`` that breaks the rule (empty: all fit)."""
    own = [c for _, c in inspect.getmembers(module, inspect.isclass)
           if c.__module__ == module.__name__ and issubclass(c, Exception)]
    problems = []
    for cls in own:
        permanent, transient = issubclass(cls, PermanentError), issubclass(cls, TransientError)
        is_base = any(other is not cls and issubclass(other, cls) for other in own)
        if not issubclass(cls, StereoSpotError):
            problems.append(f"{cls.__name__} is not a StereoSpotError")
        elif permanent and transient:
            problems.append(f"{cls.__name__} is both permanent and transient")
        elif not (permanent or transient or is_base or cls.__name__ in neither):
            problems.append(f"{cls.__name__} is neither permanent nor transient")
    return problems
