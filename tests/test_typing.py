"""The public API is typed: every public function, and every public method of a public
class, annotates each parameter and its return, and the annotations resolve
(`typing.get_type_hints`). `mypy eagerflow` (run by .ci/run) checks that they are true."""

import ast
import inspect
import pathlib
import types
import typing

import numpy as np

import eagerflow as ef
from tests.test_docs import _public_names

# Methods that are public without a leading underscore.
_DUNDERS = ("__init__", "__call__")


def _own_functions(cls):
    """``(name, function)`` for the public methods and properties that eagerflow classes in
    `cls`'s MRO define (the nearest definition of each name)."""
    seen = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("eagerflow"):
            continue
        for name, member in vars(klass).items():
            if name in seen or (name.startswith("_") and name not in _DUNDERS):
                continue
            seen.add(name)
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            elif isinstance(member, property):
                member = member.fget
            if inspect.isfunction(member):
                yield f"{klass.__qualname__}.{name}", member


def _public_callables():
    found = {}
    for namespace, name in sorted(_public_names()):
        value = getattr(getattr(ef, namespace) if namespace else ef, name)
        if isinstance(value, (types.ModuleType, np.dtype)):
            continue
        if inspect.isclass(value):
            if value.__module__.startswith("eagerflow"):
                for label, function in _own_functions(value):
                    found.setdefault(f"{function.__module__}.{label}", function)
        elif inspect.isfunction(value):
            found.setdefault(f"{value.__module__}.{value.__qualname__}", value)
        elif callable(value):  # e.g. a decorated function object
            found.setdefault(f"ef.{namespace}.{name}", inspect.unwrap(value))
    return found


def _missing_hints(function) -> list:
    signature = inspect.signature(function)
    missing = [parameter.name for i, parameter in enumerate(signature.parameters.values())
               if parameter.annotation is inspect.Parameter.empty
               and not (i == 0 and parameter.name in ("self", "cls"))]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    if not missing:
        try:
            typing.get_type_hints(function)
        except Exception as e:  # noqa: BLE001 - any failure to resolve is the finding
            missing.append(f"unresolvable ({type(e).__name__}: {e})")
    return missing


def test_the_walk_finds_the_public_api():
    found = _public_callables()
    assert len(found) > 900
    for name in ("eagerflow.ops.math.add", "eagerflow.core.tape.GradientTape.gradient",
                 "eagerflow.models.trainer.Trainer.fit", "eagerflow.data.dataset.Dataset.map",
                 "eagerflow.core.variable.Variable.assign", "eagerflow.layers.core.Dense.call"):
        assert name in found


def test_every_public_callable_is_fully_annotated():
    offenders = {}
    for name, function in sorted(_public_callables().items()):
        missing = _missing_hints(function)
        if missing:
            offenders[name] = missing
    assert not offenders, (
        f"{len(offenders)} public callables lack type hints (parameter names, or 'return'):\n"
        + "\n".join(f"  {name}: {missing}" for name, missing in offenders.items()))


def test_the_check_names_what_is_missing():
    def untyped(x, y: int = 0):
        return x

    def typed(x: int) -> "NoSuchName":  # noqa: F821 - deliberately unresolvable
        return x

    assert _missing_hints(untyped) == ["x", "return"]
    assert _missing_hints(typed)[0].startswith("unresolvable (NameError")


def test_the_package_ships_its_type_marker():
    assert (pathlib.Path(ef.__file__).parent / "py.typed").is_file()


def test_type_checkers_see_every_lazily_loaded_name():
    # `ef.layers`, `ef.Sequential`, ... load on first use (a module __getattr__, which type
    # checkers cannot follow): the package imports them again under TYPE_CHECKING.
    tree = ast.parse(pathlib.Path(ef.__file__).read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and ast.unparse(node.test).endswith("TYPE_CHECKING"))
    seen = {alias.asname or alias.name for node in block.body
            for alias in getattr(node, "names", [])}
    assert seen == set(ef._LAZY)
