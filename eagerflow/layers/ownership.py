"""The one ownership rule: what a layer owns is what its attributes hold.

("Owned" is this rule; "tracked" means what a checkpoint follows, `core.trackable`'s
children, which include what a layer owns and more, such as metrics.)

A layer owns the variables it created with `add_weight`, plus every Layer and Variable
reachable from its attributes, in attribute insertion order, looking inside lists, tuples
and dicts (dicts in insertion order) to any depth. Nothing is wrapped or intercepted, so
a list appended to after assignment is seen on the next walk exactly like one built in
place. The walk is cheap (a few hundred attributes for a large model)
and runs when a collection is asked for, never per op.

A layer's variables are read from the one walk of an object's state, `ef.Module`'s
(`Layer._walk_leaves` says what a layer holds itself): its own variables first, then each
sublayer's, recursively, as Keras's ``Layer.weights``. `flatten_layers` lists the layers
themselves depth first, each before its sublayers, as Keras's ``_flatten_layers``.

Examples:
    >>> import eagerflow as ef
    >>> class Stack(ef.layers.Layer):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.blocks = []
    ...         self.blocks.append(ef.layers.Dense(2, name="block"))
    ...     def call(self, x):
    ...         for block in self.blocks:
    ...             x = block(x)
    ...         return x
    >>> model = Stack()
    >>> _ = model(ef.ones([1, 3]))
    >>> [v.name for v in model.trainable_variables]
    ['block/kernel', 'block/bias']
"""

from __future__ import annotations

from eagerflow.core import variable as variable_lib

_Variable = variable_lib.Variable


def leaves(value):
    """Yields the Layers and Variables inside `value` (a container or a single object)."""
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from leaves(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, _Variable) or getattr(value, "_is_layer", False):
        yield value


# Attribute values that can never hold a layer or variable: skipped by one type test.
_PLAIN = frozenset({int, float, bool, str, type(None), bytes, complex})


def attribute_items(obj) -> list:
    """``(name, value)`` of the attributes of `obj` that hold Layers or Variables."""
    skip = obj._BOOKKEEPING
    items = []
    for name, value in vars(obj).items():
        if name in skip or type(value) in _PLAIN:
            continue
        if isinstance(value, (list, tuple, dict)):
            if next(leaves(value), None) is not None:
                items.append((name, value))
        elif isinstance(value, _Variable) or getattr(value, "_is_layer", False):
            items.append((name, value))
    return items


def sublayers(layer) -> list:
    """The layers `layer` holds directly (not their sublayers), deduplicated, in order."""
    seen = set()
    found = []
    for _, value in layer._owned_items():
        for leaf in leaves(value):
            if getattr(leaf, "_is_layer", False) and id(leaf) not in seen and leaf is not layer:
                seen.add(id(leaf))
                found.append(leaf)
    return found


def flatten_layers(layer, include_self: bool = True) -> list:
    """`layer` and every layer below it, depth first, each once."""
    seen = {id(layer)}
    found = [layer] if include_self else []
    stack = list(reversed(sublayers(layer)))
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        found.append(current)
        stack.extend(reversed(sublayers(current)))
    return found


def own_variables(layer) -> list:
    """The variables `layer` holds itself (`add_weight`'s and those in its attributes), not
    its sublayers', in the order `save_own_variables` stores them."""
    found, seen = [], set()
    for leaf in layer._walk_leaves():
        if isinstance(leaf, _Variable) and id(leaf) not in seen:
            seen.add(id(leaf))
            found.append(leaf)
    return found


def assign_own_variables(layer, store) -> None:
    """`Layer.load_own_variables`: assigns ``store["0"]``, ``store["1"]``... to the layer's
    own variables, after checking that the count and shapes fit."""
    variables = own_variables(layer)
    keys = [str(index) for index in range(len(variables))]
    if len(store) != len(variables) or any(key not in store for key in keys):
        raise ValueError(
            f"Layer {layer.name!r} expected {len(variables)} variables, but received "
            f"{len(store)} variables during loading ({sorted(store)}). Expected: "
            f"{[variable.name for variable in variables]} as {keys}.")
    for variable, key in zip(variables, keys, strict=True):
        value = store[key]
        if tuple(getattr(value, "shape", ())) != tuple(variable.shape):
            raise ValueError(
                f"Layer {layer.name!r}: the value stored as {key!r} has shape "
                f"{tuple(getattr(value, 'shape', ()))}, but variable {variable.name!r} has "
                f"shape {tuple(variable.shape)}.")
        variable.assign(value)
