"""einsum: Einstein summation over any equation NumPy accepts, with gradients as einsums.

The public function first rewrites the equation into a canonical form the ``Einsum``
primitive and its gradient can reason about: no spaces, an explicit output, ``...``
replaced by fresh letters, and size-1 dimensions that broadcast against a larger size
squeezed out of their operand (a differentiable reshape, so their gradient is summed back
by the reshape's own gradient). In canonical form every letter has one size.

Gradient of operand ``i`` with subscripts ``s_i``: contract the output gradient with all
the other operands, ``einsum("out,s_j,...->s_i", dy, *others)``. Two cases need care:

* a letter repeated in ``s_i`` (a diagonal, ``"ii->i"``) cannot be repeated in an output;
  its repeats are renamed to fresh letters and tied to the original by an identity
  matrix operand, which puts the gradient back on the diagonal;
* a letter only ``s_i`` has (summed away, ``"ij->i"`` for ``j``) appears in no other term;
  the gradient is constant along it, so it is computed without it and broadcast.

Both are einsums (or a broadcast) again, so gradients of any order work.

Examples:
    >>> import eagerflow as ef
    >>> ef.einsum("ij,jk->ik", [[1.0, 2.0]], [[3.0], [4.0]])
    ef.Tensor([[11.]], shape=(1, 1), dtype=float32)
    >>> ef.einsum("ii", [[1.0, 2.0], [3.0, 4.0]])
    ef.Tensor(5.0, shape=(), dtype=float32)
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.core.tensor import Tensor
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation

_LETTERS = string.ascii_letters
_OP = "Einsum"


def _fail(message):
    raise errors.InvalidArgumentError(message, _OP)


@primitive("Einsum")
def _einsum(*operands, equation):
    # optimize=True lets NumPy reorder contractions and use BLAS (tensordot); its path
    # search costs tens of microseconds, more than a tiny einsum itself.
    big = len(operands) > 1 and sum(op.size for op in operands) > 4096
    return np.asarray(np.einsum(equation, *operands, optimize=big))


_einsum.jvp(forwardprop.MULTILINEAR)  # JVP: linear in each input: one term per input


@_einsum.gradient
def _einsum_grad(dy, out, *operands, needs, equation):
    lhs, output = equation.split("->")
    terms = lhs.split(",")
    return tuple(_operand_grad(i, terms, output, dy, operands) if needs[i] else None
                 for i in range(len(operands)))


def _operand_grad(index, terms, output, dy, operands):
    term, operand = terms[index], operands[index]
    others = "".join(t for j, t in enumerate(terms) if j != index) + output
    fresh = iter(c for c in _LETTERS if c not in "".join(terms) + output)
    # Rename the repeats of a diagonal letter and tie each to the original with an eye.
    target, ties = [], []
    for c in term:
        if c in target:
            new = next(fresh)
            ties.append(c + new)
            target.append(new)
        else:
            target.append(c)
    linked = others + "".join(ties)
    inputs = [dy] + [op for j, op in enumerate(operands) if j != index]
    subscripts = [output] + [t for j, t in enumerate(terms) if j != index]
    for tie in ties:
        inputs.append(_creation.eye(operand.shape[term.index(tie[0])], dtype=dy.dtype))
        subscripts.append(tie)
    kept = "".join(c for c in target if c in linked)
    grad = einsum(",".join(subscripts) + "->" + kept, *inputs)
    lonely = [k for k, c in enumerate(target) if c not in linked]
    if not lonely:
        return grad
    # Letters only this operand has (summed away): the gradient is constant along them.
    expanded = [1 if k in lonely else operand.shape[k] for k in range(len(target))]
    return _array.broadcast_to(_array.reshape(grad, expanded), operand.shape)


# -- parsing ------------------------------------------------------------------------------
def _split(equation: str, count: int):
    text = equation.replace(" ", "")
    if text.count("->") > 1:
        _fail(f"equation {equation!r} has more than one '->'")
    lhs, arrow, output = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != count:
        _fail(f"equation {equation!r} has {len(terms)} input terms but {count} operands "
              "were given")
    for part in terms + ([output] if arrow else []):
        rest = part.replace("...", "", 1)
        bad = [c for c in rest if c not in _LETTERS]
        if bad:
            _fail(f"invalid subscript {bad[0]!r} in equation {equation!r}: subscripts must be "
                  "letters, with at most one '...' per term")
    return terms, (output if arrow else None)


def _canonical(equation: str, tensors):
    """Returns (canonical equation, operands with broadcast size-1 dims squeezed)."""
    terms, output = _split(equation, len(tensors))
    used = set(equation)
    spare = [c for c in _LETTERS if c not in used]
    ellipsis_rank = 0
    for term, x in zip(terms, tensors, strict=True):
        letters = len(term.replace("...", ""))
        if "..." in term:
            if x.ndim < letters:
                _fail(f"operand of shape {x.shape} has rank {x.ndim}, fewer than the "
                      f"{letters} subscripts of term {term!r}")
            ellipsis_rank = max(ellipsis_rank, x.ndim - letters)
        elif x.ndim != letters:
            _fail(f"term {term!r} has {letters} subscripts but its operand has shape {x.shape} "
                  f"(rank {x.ndim}); use '...' for extra dimensions")
    if ellipsis_rank > len(spare):
        _fail(f"equation {equation!r} needs more than 52 distinct subscripts")
    dots = "".join(spare[:ellipsis_rank])
    expanded = []
    for term, x in zip(terms, tensors, strict=True):
        if "..." in term:
            own = x.ndim - len(term.replace("...", ""))
            term = term.replace("...", dots[ellipsis_rank - own:])
        expanded.append(term)
    if output is None:
        counts = {c: sum(t.count(c) for t in expanded) for c in set("".join(expanded))}
        output = dots + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in dots))
    else:
        if "..." not in output and ellipsis_rank and any(
                "..." in t and x.ndim > len(t.replace("...", ""))
                for t, x in zip(terms, tensors, strict=True)):
            _fail(f"equation {equation!r}: the output needs '...' because the inputs' '...' "
                  "stands for dimensions")
        output = output.replace("...", dots)
        for c in output:
            if output.count(c) > 1:
                _fail(f"output subscript {c!r} appears more than once in {equation!r}")
            if not any(c in t for t in expanded):
                _fail(f"output subscript {c!r} of {equation!r} appears in no input term")
    return _broadcast_sizes(expanded, output, tensors, equation)


def _broadcast_sizes(terms, output, tensors, equation):
    sizes: dict[str, int] = {}
    for term, x in zip(terms, tensors, strict=True):
        for c, n in zip(term, x.shape, strict=True):
            if sizes.get(c, 1) == 1:
                sizes[c] = n
            elif n not in (1, sizes[c]):
                _fail(f"size of subscript {c!r} differs between operands in {equation!r}: "
                      f"{sizes[c]} vs. {n} (operand shapes {[t.shape for t in tensors]})")
    new_terms, new_tensors = [], []
    for term, x in zip(terms, tensors, strict=True):
        keep = [k for k, c in enumerate(term) if not (x.shape[k] == 1 and sizes[c] != 1)]
        if len(keep) != len(term):
            # A broadcast size-1 dimension: drop it so every letter has a single size.
            x = _array.reshape(x, [x.shape[k] for k in keep])
            term = "".join(term[k] for k in keep)
        new_terms.append(term)
        new_tensors.append(x)
    return ",".join(new_terms) + "->" + output, new_tensors


def einsum(equation: Any, *inputs: Any, **kwargs: Any) -> Tensor:
    """Einstein summation, for any equation `numpy.einsum` accepts.

    Args:
        equation: subscripts such as ``"ij,jk->ik"``; ``...`` stands for broadcast
            dimensions; without ``->`` the output is the letters seen exactly once, in
            alphabetical order (after the ``...`` dimensions), as in NumPy.
        *inputs: the operands, one per comma-separated term.
        **kwargs: ``name`` and ``optimize`` are accepted for TensorFlow compatibility and
            ignored (large contractions are always optimised).

    Returns:
        The contraction, differentiable (to any order) with respect to every operand.

    Raises:
        InvalidArgumentError: for malformed equations, a term whose subscripts do not match
            its operand's rank, or mismatched sizes, naming them.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.ones([2, 3, 4])
        >>> ef.einsum("bij,bjk->bik", x, ef.ones([2, 4, 5])).shape
        (2, 3, 5)
        >>> ef.einsum("...ij->...ji", x).shape
        (2, 4, 3)
        >>> ef.einsum("ij,ij", [[1.0, 2.0]], [[3.0, 4.0]])
        ef.Tensor(11.0, shape=(), dtype=float32)
    """
    unknown = set(kwargs) - {"name", "optimize"}
    if unknown:
        raise TypeError(f"einsum() got unexpected keyword arguments {sorted(unknown)}")
    if not isinstance(equation, str):
        raise TypeError(f"einsum() equation must be a string, got {type(equation).__name__}")
    if not inputs:
        _fail("einsum needs at least one operand")
    tensors = [convert_input(x) for x in inputs]
    canonical, tensors = _canonical(equation, tensors)
    return execute(_einsum, tuple(tensors), {"equation": canonical})
