"""Cross-entropies on logits: softmax, sparse softmax, and sigmoid.

Each is one fused primitive computed in log-sum-exp form, so logits of any magnitude
(``+-1000`` in float32) give finite losses and gradients, never ``nan`` or ``inf``:

* softmax: ``loss = logsumexp(z) * sum(p) - sum(p * z)`` with the maximum subtracted
  first; ``d/dz = softmax(z) * sum(p) - p`` (which is ``softmax(z) - p`` for
  distributions; TensorFlow uses that form even when labels do not sum to 1, we use the
  exact derivative), ``d/dp = -log_softmax(z)``. As for the sparse one below, the
  forward keeps its softmax for the gradient, and the gradient op
  (``SoftmaxCrossEntropyWithLogitsGrad``) turns it into ``dy * (softmax * sum(p) - p)``
  in place;
* sparse softmax: ``loss = logsumexp(z) - z[label]``; ``d/dz = softmax(z) - one_hot``;
  labels outside ``[0, classes)`` are an `InvalidArgumentError` naming them. Forward and
  gradient share one softmax: while a tape records (or a traced step takes the
  gradient), the forward keeps the softmax it computed anyway (`ops/kernels/saved.py`),
  and the gradient kernel subtracts 1 at each label in place: no second softmax, no
  one-hot matrix;
* sigmoid: ``loss = max(z, 0) - z * p + log1p(exp(-|z|))``; ``d/dz = sigmoid(z) - p``,
  ``d/dp = -z``.

The gradients use the ``Softmax``/``Sigmoid`` ops, so second derivatives work.

Examples:
    >>> import eagerflow as ef
    >>> ef.nn.sparse_softmax_cross_entropy_with_logits([0], [[1000.0, -1000.0]])
    ef.Tensor([0.], shape=(1,), dtype=float32)
    >>> ef.nn.sigmoid_cross_entropy_with_logits([1.0], [-1000.0])
    ef.Tensor([1000.], shape=(1,), dtype=float32)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import context, errors, forwardprop
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import math as _math
from eagerflow.ops import nn_ops as _nn
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.kernels import kernel_sets, saved
from eagerflow.ops.typing import Tensor, TensorLike

_flags = context.flags


def _float_logits(logits, op_name):
    z = convert_input(logits)
    if z.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"logits must be floating-point, got dtype {z.dtype.name}", op_name
        )
    return z


def _labels_like(labels, z, op_name):
    """Converts `labels` to the logits' dtype (casting numeric data) and checks the shape."""
    if hasattr(labels, "dtype"):
        p = convert_input(labels)
        if p.dtype != z.dtype:
            if p.dtype.kind not in "biuf":
                raise errors.InvalidArgumentError(
                    f"labels must be numeric, got dtype {p.dtype.name}", op_name
                )
            p = _math.cast(p, z.dtype)
    else:
        p = convert_input(labels, dtype=z.dtype)
    if p.shape != z.shape:
        raise errors.InvalidArgumentError(
            f"logits and labels must have the same shape: logits {z.shape} vs. labels "
            f"{p.shape}", op_name
        )
    return p


# -- softmax cross-entropy ----------------------------------------------------------------
def _softmax_xent_parts(labels, logits, want_softmax):
    """``(loss, softmax or None)`` from one pass of exponentials:
    ``loss = sum(labels * (log(sum(e)) - shifted))`` with ``e = exp(shifted)`` and the row
    maximum subtracted first (so the most likely class gets exactly ``+0.0``)."""
    shifted = logits - np.maximum.reduce(logits, axis=-1, keepdims=True)
    exps = np.exp(shifted)
    total = np.add.reduce(exps, axis=-1, keepdims=True)
    neg_log_softmax = np.subtract(np.log(total), shifted, out=shifted)
    loss = np.empty(logits.shape[:-1], logits.dtype)  # 0-d stays an array (for `saved`)
    np.add.reduce(np.multiply(labels, neg_log_softmax, out=neg_log_softmax), axis=-1,
                  out=loss)
    return loss, (np.divide(exps, total, out=exps) if want_softmax else None)


@primitive("SoftmaxCrossEntropyWithLogits", fresh=True)
def _softmax_xent(labels, logits, save_for_gradient=False):
    keep = bool(_flags.tapes or save_for_gradient)  # the gradient will want the softmax
    loss, softmax = _softmax_xent_parts(labels, logits, keep)
    if keep:
        saved.remember(loss, ("xent-softmax", logits.shape), softmax)
    return loss


@_softmax_xent.gradient
def _softmax_xent_grad(dy, loss, labels, logits, needs):
    d_labels = d_logits = None
    if needs[1]:
        d_logits = execute(_softmax_xent_backprop, (dy, loss, labels, logits))
    if needs[0]:
        d_labels = _math.multiply(_unary.negative(_array.expand_dims(dy, -1)),
                                  _nn.log_softmax(logits))
    return d_labels, d_logits


@_softmax_xent.jvp
def _softmax_xent_jvp(tangents, loss, labels, logits):
    # d loss = sum(-d labels * log_softmax(z) + (softmax(z) * sum(labels) - labels) * d z)
    d_labels, d_logits = tangents
    total = None
    if d_logits is not None:
        weight = _math.subtract(_math.multiply(
            _nn.softmax(logits), _reduce.reduce_sum(labels, -1, keepdims=True)), labels)
        total = _reduce.reduce_sum(_math.multiply(weight, d_logits), -1)
    if d_labels is not None:
        term = _reduce.reduce_sum(_math.multiply(_unary.negative(d_labels),
                                                 _nn.log_softmax(logits)), -1)
        total = term if total is None else _math.add(total, term)
    return total


@primitive("SoftmaxCrossEntropyWithLogitsGrad", fresh=True)
def _softmax_xent_backprop(dy, loss, labels, logits):
    """``dy[..., None] * (softmax(logits) * sum(labels) - labels)``, from the softmax the
    forward pass saved for `loss` (recomputed when it is gone), written in place: three
    passes, the multiply by the label sums skipped when every row sums to exactly 1."""
    softmax = saved_softmax(loss, labels, logits)
    total = np.add.reduce(labels, axis=-1, keepdims=True)
    if not (total == 1).all():  # (x * 1 is x: skipping it changes no bit)
        softmax *= total
    softmax -= labels
    return np.multiply(softmax, dy[..., None], out=softmax)


def saved_softmax(loss: np.ndarray, labels: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """The softmax ``SoftmaxCrossEntropyWithLogits`` saved with its `loss` (taken: the
    caller may overwrite it), or a new one when none was saved (for the kernels of its
    gradient op)."""
    softmax = saved.take(loss, ("xent-softmax", logits.shape))
    if softmax is None:
        softmax = _softmax_xent_parts(labels, logits, True)[1]
    return softmax


def _takes_saved_softmax(backprop: str, forward: str) -> None:
    """Declares that a traced `backprop` op takes the softmax its `forward` op saved: the
    entry is keyed by the loss (the forward's output, the backprop's input 1), and taken
    when both ops read the same logits (the forward's input 1, the backprop's input 3)."""
    saved.pair(backprop, forward, lambda node: node.inputs[1], lambda node: node.outputs[0],
               lambda producer, consumer: consumer.inputs[3] is producer.inputs[1]
               and None not in producer.inputs[1].shape)


_takes_saved_softmax("SoftmaxCrossEntropyWithLogitsGrad", "SoftmaxCrossEntropyWithLogits")


_softmax_xent_backprop.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_softmax_xent_backprop.gradient
def _softmax_xent_backprop_grad(dg, g, dy, loss, labels, logits, needs):
    # g = dy * (s * t - p) with s = softmax(z), t = sum(p): d/d(dy) = sum(dg * (s t - p));
    # d/dp = dy * (sum(dg * s) - dg) (t's derivative spreads over the row); d/dz = t s (u -
    # sum(u s)) with u = dg * dy (softmax's VJP). In ops, so higher orders work too.
    softmax = _nn.softmax(logits)
    total = _reduce.reduce_sum(labels, -1, keepdims=True)
    dy_ = _array.expand_dims(dy, -1)
    d_dy = d_labels = d_logits = None
    if needs[0]:
        d_dy = _reduce.reduce_sum(
            _math.multiply(dg, _math.subtract(_math.multiply(softmax, total), labels)), -1)
    if needs[2]:
        d_labels = _math.multiply(dy_, _math.subtract(
            _reduce.reduce_sum(_math.multiply(dg, softmax), -1, keepdims=True), dg))
    if needs[3]:
        u = _math.multiply(dg, dy_)
        inner = _reduce.reduce_sum(_math.multiply(u, softmax), -1, keepdims=True)
        d_logits = _math.multiply(_math.multiply(softmax, total), _math.subtract(u, inner))
    return d_dy, None, d_labels, d_logits


kernel_sets.register("SoftmaxCrossEntropyWithLogitsGrad",
                     forward="eagerflow.ops.kernels.xent_jit:softmax_xent_grad")


def _last_axis(x, axis, op_name):
    axis = int(axis)
    if not -x.ndim <= axis < x.ndim:
        raise errors.InvalidArgumentError(
            f"axis {axis} is out of bounds for logits of shape {x.shape}", op_name
        )
    return axis % x.ndim


def softmax_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike, axis: int = -1,
                                      name: str | None = None) -> Tensor:
    """Cross-entropy between `labels` (class probabilities) and ``softmax(logits)``.

    Args:
        labels: probabilities, the shape of `logits` (each row usually sums to 1).
        logits: unscaled log-probabilities, floating-point.
        axis: the class axis.

    Returns:
        The loss per example: `logits`' shape without `axis`.

    Raises:
        InvalidArgumentError: for mismatched shapes, a bad axis, or non-float data.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.softmax_cross_entropy_with_logits([[0.0, 1.0]], [[0.0, 0.0]])
        ef.Tensor([0.6931], shape=(1,), dtype=float32)
        >>> ef.nn.softmax_cross_entropy_with_logits([[0.0, 1.0]], [[1000.0, -1000.0]])
        ef.Tensor([2000.], shape=(1,), dtype=float32)
    """
    op_name = "SoftmaxCrossEntropyWithLogits"
    z = _float_logits(logits, op_name)
    if z.ndim == 0:
        raise errors.InvalidArgumentError("logits must have at least one dimension", op_name)
    p = _labels_like(labels, z, op_name)
    axis = _last_axis(z, axis, op_name)
    if axis != z.ndim - 1:
        perm = [i for i in range(z.ndim) if i != axis] + [axis]
        z, p = _array.transpose(z, perm), _array.transpose(p, perm)
    return execute(_softmax_xent, (p, z))


# -- sparse softmax cross-entropy ---------------------------------------------------------
def _check_labels(labels, classes):
    bad = (labels < 0) | (labels >= classes)
    if bad.any():
        shown = " ".join(str(int(v)) for v in labels.reshape(-1)[:20])
        more = " ..." if labels.size > 20 else ""
        raise errors.InvalidArgumentError(
            f"Received a label value of {int(labels[bad][0])} which is outside the valid "
            f"range of [0, {classes}).  Label values: {shown}{more}"
        )


def _sparse_softmax(labels, logits, want_softmax):
    """``(loss, softmax or None)`` from one pass of exponentials.

    ``loss = log(sum(e)) - shifted[label]`` with ``e = exp(shifted)`` and the row maximum
    subtracted first: the label's logit is picked before the exponentials overwrite the
    shifted logits in place, and the most likely class gets exactly ``+0.0``.
    """
    shifted = logits - np.maximum.reduce(logits, axis=-1, keepdims=True)
    loss = np.empty(labels.shape, logits.dtype)  # 0-d stays an array (for `saved`)
    rows = shifted.reshape(-1, shifted.shape[-1])  # (take_along_axis costs ~7 us a call)
    loss.reshape(-1)[...] = rows[np.arange(rows.shape[0]), labels.reshape(-1)]
    exps = np.exp(shifted, out=shifted)
    total = np.add.reduce(exps, axis=-1, keepdims=True)
    np.subtract(np.log(total[..., 0]), loss, out=loss)
    return loss, (np.divide(exps, total, out=exps) if want_softmax else None)


@primitive("SparseSoftmaxCrossEntropyWithLogits", fresh=True)
def _sparse_softmax_xent(labels, logits, save_for_gradient=False):
    _check_labels(labels, logits.shape[-1])
    keep = bool(_flags.tapes or save_for_gradient)  # the gradient will want the softmax
    loss, softmax = _sparse_softmax(labels, logits, keep)
    if keep:
        saved.remember(loss, ("sparse-xent-softmax", logits.shape), softmax)
    return loss


_sparse_softmax_xent.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_sparse_softmax_xent.gradient
def _sparse_softmax_xent_grad(dy, loss, labels, logits):
    return None, execute(_sparse_softmax_xent_backprop, (dy, loss, labels, logits))


@primitive("SparseSoftmaxCrossEntropyWithLogitsGrad", fresh=True)
def _sparse_softmax_xent_backprop(dy, loss, labels, logits):
    """``dy[..., None] * (softmax(logits) - one_hot(labels))`` without the one-hot matrix,
    from the softmax the forward pass saved for `loss` (recomputed when it is gone)."""
    softmax = saved.take(loss, ("sparse-xent-softmax", logits.shape))
    if softmax is None:
        softmax = _sparse_softmax(labels, logits, True)[1]
    rows = softmax.reshape(-1, logits.shape[-1])  # a view: the softmax is ours to overwrite
    rows[np.arange(rows.shape[0]), labels.reshape(-1)] -= 1
    return np.multiply(softmax, np.expand_dims(dy, -1), out=softmax)


_takes_saved_softmax("SparseSoftmaxCrossEntropyWithLogitsGrad",
                     "SparseSoftmaxCrossEntropyWithLogits")


_sparse_softmax_xent_backprop.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_sparse_softmax_xent_backprop.gradient
def _sparse_softmax_xent_backprop_grad(dg, g, dy, loss, labels, logits, needs):
    # g = dy * (s - onehot) with s = softmax(z): d/d(dy) = sum(dg * (s - onehot)) over
    # classes; d/dz = s * (u - sum(u * s)) with u = dg * dy (softmax's VJP). In ops, so
    # higher orders work too.
    softmax = _nn.softmax(logits)
    d_dy = d_logits = None
    if needs[0]:
        target = _indexing.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
        d_dy = _reduce.reduce_sum(_math.multiply(dg, _math.subtract(softmax, target)), -1)
    if needs[3]:
        u = _math.multiply(dg, _array.expand_dims(dy, -1))
        inner = _reduce.reduce_sum(_math.multiply(u, softmax), -1, keepdims=True)
        d_logits = _math.multiply(softmax, _math.subtract(u, inner))
    return d_dy, None, None, d_logits


def sparse_softmax_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike,
                                             name: str | None = None) -> Tensor:
    """Cross-entropy between integer class `labels` and ``softmax(logits)``.

    Args:
        labels: integer class indices in ``[0, classes)``, shape ``logits.shape[:-1]``.
        logits: unscaled log-probabilities ``(..., classes)``.

    Returns:
        The loss per example, shaped like `labels`.

    Raises:
        InvalidArgumentError: for a label outside ``[0, classes)`` (naming it), mismatched
            shapes, or non-integer labels.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.sparse_softmax_cross_entropy_with_logits([1], [[0.0, 0.0]])
        ef.Tensor([0.6931], shape=(1,), dtype=float32)
        >>> ef.nn.sparse_softmax_cross_entropy_with_logits([2], [[0.0, 0.0]])
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        eagerflow.core.errors.InvalidArgumentError: Received a label value of 2 which is ...
    """
    op_name = "SparseSoftmaxCrossEntropyWithLogits"
    z = _float_logits(logits, op_name)
    y = convert_input(labels)
    if y.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            f"labels must be integer class indices, got dtype {y.dtype.name}", op_name
        )
    if z.ndim == 0 or y.shape != z.shape[:-1]:
        raise errors.InvalidArgumentError(
            f"labels shape must equal logits shape except for the last dimension: received "
            f"labels shape {y.shape} and logits shape {z.shape}", op_name
        )
    return execute(_sparse_softmax_xent, (y, z))


# -- sigmoid cross-entropy ----------------------------------------------------------------
@primitive("SigmoidCrossEntropyWithLogits")
def _sigmoid_xent(labels, logits):
    # max(z, 0) - z p + log(1 + e^-|z|): no exp of a positive number, so no overflow.
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


_sigmoid_xent.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_sigmoid_xent.gradient
def _sigmoid_xent_grad(dy, loss, labels, logits, needs):
    d_labels = _math.multiply(_unary.negative(dy), logits) if needs[0] else None
    d_logits = None
    if needs[1]:
        d_logits = _math.multiply(dy, _math.subtract(_unary.sigmoid(logits), labels))
    return d_labels, d_logits


def sigmoid_cross_entropy_with_logits(labels: TensorLike | None = None,
                                      logits: TensorLike | None = None,
                                      name: str | None = None) -> Tensor:
    """Elementwise binary cross-entropy between `labels` and ``sigmoid(logits)``.

    Args:
        labels: targets in [0, 1], the shape of `logits`.
        logits: unscaled log-odds, floating-point.

    Returns:
        The elementwise loss, the shape of `logits`.

    Raises:
        InvalidArgumentError: for mismatched shapes or non-float logits.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.sigmoid_cross_entropy_with_logits([1.0, 0.0], [0.0, 0.0])
        ef.Tensor([0.6931 0.6931], shape=(2,), dtype=float32)
        >>> ef.nn.sigmoid_cross_entropy_with_logits([0.0], [1000.0])
        ef.Tensor([1000.], shape=(1,), dtype=float32)
    """
    op_name = "SigmoidCrossEntropyWithLogits"
    if labels is None or logits is None:
        raise errors.InvalidArgumentError("both labels and logits are required", op_name)
    z = _float_logits(logits, op_name)
    return execute(_sigmoid_xent, (_labels_like(labels, z, op_name), z))


# -- value checks of cross-entropy targets ------------------------------------------------
# Ops rather than Python checks, so that they run each time a traced graph runs (a check
# of values in Python runs once, while tracing) and exported graphs keep them. They have
# effects (they may raise), so a graph keeps them in their place: before the loss and the
# update that follow them.
@primitive("CheckClassIndices", differentiable=False, pure=False)
def _check_class_indices(labels, owner, classes):
    # Keras truncates a label of 1.5 to class 1; a fractional label is a mistake to report.
    if labels.dtype.kind == "f" and not np.all(np.floor(labels) == labels):
        raise errors.InvalidArgumentError(
            f"{owner}: y_true must hold integer class indices; it has non-integer values "
            f"such as {float(labels[np.floor(labels) != labels].flat[0])} (integral floats "
            "such as 1.0 are accepted)."
        )
    outside = (labels < 0) | (labels >= classes) if classes >= 0 else labels < 0
    if outside.any():
        raise errors.InvalidArgumentError(
            f"{owner}: received a label value of {int(labels[outside].flat[0])} which is "
            f"outside the valid range of [0, {classes})."
        )
    return labels


def check_class_indices(labels: TensorLike, owner: str, classes: int | None) -> Tensor:
    """Raises unless `labels` hold integral class indices in ``[0, classes)``, eagerly
    or each time a traced graph runs; integral floats (1.0) pass.

    Args:
        labels: class indices (integers, or floats holding integers).
        owner: the function named in the error (e.g. ``"sparse_categorical_crossentropy"``).
        classes: the number of classes, or None when unknown (only negatives are refused).

    Returns:
        `labels`, unchanged.

    Raises:
        InvalidArgumentError: naming `owner` and the first bad value.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import cross_entropy
        >>> cross_entropy.check_class_indices([1.5], "my_loss", 3)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        eagerflow.core.errors.InvalidArgumentError: my_loss: ... such as 1.5 ...
    """
    return execute(_check_class_indices, (labels,),
                   {"owner": str(owner), "classes": -1 if classes is None else int(classes)})


@primitive("CheckProbabilityTargets", differentiable=False, pure=False)
def _check_probability_targets(targets, owner):
    if targets.size and targets.dtype.kind in "biuf":
        low, high = targets.min(), targets.max()
        if low < 0 or high > 1:
            raise errors.InvalidArgumentError(
                f"{owner}: targets must be in [0, 1] (probabilities or 0/1 labels). Received "
                f"values in [{low}, {high}]. For integer class labels use "
                "sparse_categorical_crossentropy."
            )
    return targets


def check_probability_targets(targets: TensorLike, owner: str) -> Tensor:
    """Raises unless every value of `targets` is in [0, 1], eagerly or each time a traced
    graph runs (the targets of binary and categorical cross-entropies).

    Returns:
        `targets`, unchanged.

    Raises:
        InvalidArgumentError: naming `owner` and the range of the values received.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import cross_entropy
        >>> cross_entropy.check_probability_targets([0.0, 1.0], "bce")
        ef.Tensor([0. 1.], shape=(2,), dtype=float32)
    """
    return execute(_check_probability_targets, (targets,), {"owner": str(owner)})
