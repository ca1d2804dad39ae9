"""Every op family gives the same results (and gradients) traced as eagerly."""

import numpy as np
import pytest

import eagerflow as ef

RNG = np.random.default_rng(0)


def floats(*shape, low=-2.0, high=2.0):
    return lambda rng: rng.uniform(low, high, shape).astype(np.float32)


def ints(*shape, high=3):
    return lambda rng: rng.integers(0, high, shape).astype(np.int32)


def bools(*shape):
    return lambda rng: rng.random(shape) > 0.5


# name -> (function of tensors, input makers, differentiable)
CASES = {
    # math
    "arithmetic": (lambda x, y: (x + y, x - y, x * y, x / (ef.abs(y) + 1.0), -x, x ** 2),
                   [floats(3, 4), floats(4)], True),
    "scalar_operands": (lambda x: (2.0 * x, x + 1, 1.0 - x, x / 4.0, 3 ** ef.abs(x)),
                        [floats(5)], True),
    "unary": (lambda x: (ef.exp(x), ef.log(ef.abs(x) + 1.0), ef.log1p(ef.abs(x)), ef.expm1(x),
                         ef.sqrt(ef.abs(x) + 0.5), ef.rsqrt(ef.abs(x) + 0.5), ef.square(x),
                         ef.sin(x), ef.cos(x), ef.tan(x * 0.3), ef.tanh(x), ef.sigmoid(x),
                         ef.abs(x), ef.sign(x), ef.math.reciprocal(x + 3.0)),
              [floats(2, 3)], True),
    "rounding": (lambda x: (ef.floor(x), ef.ceil(x), ef.round(x), ef.floordiv(x, 0.7),
                            ef.mod(x, 0.7)), [floats(6)], False),
    "binary_extremes": (lambda x, y: (ef.maximum(x, y), ef.minimum(x, y),
                                      ef.clip_by_value(x, -0.5, 0.5),
                                      ef.math.squared_difference(x, y)),
                        [floats(4), floats(4)], True),
    "comparisons_logic": (lambda x, y, m: (x < y, x <= y, x > y, x >= y, ef.equal(x, y),
                                           ef.not_equal(x, y), ef.logical_and(m, x > 0),
                                           ef.logical_or(m, x > 0), ef.logical_not(m)),
                          [ints(5), ints(5), bools(5)], False),
    "where_cast": (lambda x, m: (ef.where(m, x, -x), ef.cast(x, ef.int32), ef.cast(x, ef.float64),
                                 ef.where(m)), [floats(2, 3), bools(2, 3)], False),
    "select_gradient": (lambda x, m: ef.where(m, x * x, ef.exp(x)), [floats(2, 3), bools(2, 3)],
                        True),
    "integers": (lambda a, b: (a + b, a * b, a // (b + 1), a % (b + 1), -a, a ** 2),
                 [ints(4, high=9), ints(4, high=9)], False),
    # reductions and scans
    "reductions": (lambda x: (ef.reduce_sum(x), ef.reduce_mean(x, axis=0),
                              ef.reduce_max(x, axis=1, keepdims=True), ef.reduce_min(x),
                              ef.reduce_prod(x, axis=[0, 1]), ef.reduce_logsumexp(x, axis=1),
                              ef.reduce_std(x), ef.reduce_variance(x, axis=0)),
                   [floats(3, 4)], True),
    "bool_reductions_args": (lambda x: (ef.reduce_any(x > 1.0), ef.reduce_all(x > -1.5, axis=1),
                                        ef.argmax(x, axis=1), ef.argmin(x, axis=0)),
                             [floats(3, 4)], False),
    "scans_topk": (lambda x: (ef.cumsum(x, axis=1), ef.math.cumprod(x, axis=0, reverse=True),
                              ef.math.top_k(x, k=2)[0]), [floats(3, 4)], True),
    "top_k_indices": (lambda x: ef.math.top_k(x, k=3)[1], [floats(2, 5)], False),
    # linear algebra
    "matmul": (lambda a, b: (ef.matmul(a, b), ef.matmul(a, a, transpose_b=True),
                             ef.matmul(b, b, transpose_a=True)), [floats(3, 4), floats(4, 2)],
               True),
    "batch_matmul_tensordot": (lambda a, b: (ef.matmul(a, b), ef.tensordot(a, b, axes=[[2], [1]])),
                               [floats(2, 3, 4), floats(2, 4, 5)], True),
    "norms": (lambda x: (ef.norm(x), ef.norm(x, ord=1, axis=1), ef.clip_by_norm(x, 1.0),
                         ef.clip_by_global_norm([x, x * 2.0], 1.5)[0][1]), [floats(3, 4)], True),
    # array manipulation
    "shape_ops": (lambda x: (ef.reshape(x, [4, 3]), ef.transpose(x), ef.transpose(
        ef.expand_dims(x, 0), [2, 0, 1]), ef.squeeze(ef.expand_dims(x, 1)), ef.tile(x, [2, 1]),
        ef.broadcast_to(x[:1], [5, 4]), ef.identity(x), ef.stop_gradient(x) + x),
        [floats(3, 4)], True),
    "join_split": (lambda x, y: (ef.concat([x, y], axis=0), ef.stack([x, y], axis=1),
                                 ef.unstack(x)[1], ef.split(ef.concat([x, y], 1), [3, 5], 1)[1],
                                 ef.split(x, 3)[2]), [floats(3, 4), floats(3, 4)], True),
    "creation_like": (lambda x: (ef.zeros_like(x), ef.ones_like(x, dtype=ef.int32),
                                 ef.fill([2, 2], 3.0) + x[0, 0], ef.shape(x), ef.size(x),
                                 ef.rank(x)), [floats(2, 3)], False),
    "slicing": (lambda x: (x[1], x[:, 1:3], x[::-1, ::2], x[..., -1], x[None, 0],
                           x[[0, 2, 2]]), [floats(3, 4)], True),
    "tensor_index": (lambda x, i: (x[i], x[i, 1:], ef.gather(x, i + 1)),
                     [floats(4, 3), ints(high=2)], True),
    # gather / scatter / masks / padding
    "gather_family": (lambda x, i: (ef.gather(x, i, axis=1), ef.gather_nd(x, [[0, 1], [2, 0]]),
                                    ef.scatter_nd([[1], [3]], x[:2, 0], [5])),
                      [floats(3, 4), ints(2, high=4)], True),
    "masks": (lambda x, m: (ef.boolean_mask(x, m), ef.one_hot([0, 2, 1], 3),
                            ef.sequence_mask([1, 3], maxlen=4)), [floats(4, 2), bools(4)], True),
    "padding": (lambda x: (ef.pad(x, [[1, 0], [0, 2]]), ef.pad(x, [[1, 1], [1, 1]], "REFLECT")),
                [floats(3, 3)], True),
    # nn
    "activations": (lambda x: (ef.nn.relu(x), ef.nn.softmax(x), ef.nn.log_softmax(x, axis=0)),
                    [floats(3, 5)], True),
}


def _flat(result):
    return [r for r in (result if isinstance(result, (tuple, list)) else [result])]


@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_equals_eager(name):
    fn, makers, _ = CASES[name]
    traced = ef.function(fn)
    for seed in (1, 2, 3):  # the traced run, then the graph twice with new values
        rng = np.random.default_rng(seed)
        inputs = [ef.constant(m(rng)) for m in makers]
        for got, want in zip(_flat(traced(*inputs)), _flat(fn(*inputs)), strict=True):
            assert got.dtype == want.dtype and got.shape == want.shape, name
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6,
                                       err_msg=name)
    assert traced.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("name", sorted(n for n, case in CASES.items() if case[2]))
def test_traced_gradients_equal_eager(name):
    fn, makers, _ = CASES[name]

    def total(*xs):
        return sum(ef.reduce_sum(r) for r in _flat(fn(*xs)) if r.dtype.kind == "f")

    traced = ef.function(total)
    for seed in (4, 5):
        rng = np.random.default_rng(seed)
        inputs = [ef.constant(m(rng)) for m in makers]
        sources = [x for x in inputs if x.dtype.kind == "f"]
        grads = []
        for f in (traced, total):
            with ef.GradientTape() as tape:
                tape.watch(sources)
                y = f(*inputs)
            grads.append(tape.gradient(y, sources))
        for got, want in zip(*grads, strict=True):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6,
                                       err_msg=name)


def test_random_ops_draw_like_eager_and_new_values_each_call():
    def draws():
        return (ef.random.normal([3]), ef.random.uniform([2], seed=7),
                ef.random.uniform([2], minval=0, maxval=9, dtype=ef.int32),
                ef.random.truncated_normal([3]), ef.random.categorical([[0.0, 1.0]], 4),
                ef.random.shuffle(ef.range(5)))

    traced = ef.function(draws)
    ef.random.set_seed(3)
    eager = [draws() for _ in range(3)]
    ef.random.set_seed(3)
    graph = [traced() for _ in range(3)]
    for a, b in zip(eager, graph, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x.numpy(), y.numpy())
    assert not np.array_equal(graph[1][0].numpy(), graph[2][0].numpy())


@pytest.mark.parametrize("op", [ef.math.floordiv, ef.math.mod])
def test_integer_division_by_zero_is_refused_in_graphs_as_eagerly(op):
    traced = ef.function(lambda x, y: op(x + 0, y))
    good = traced(ef.constant([4, 5]), ef.constant([2, 3]))  # traces; the plan runs below
    assert good.numpy().tolist() == op(ef.constant([4, 5]), ef.constant([2, 3])).numpy().tolist()
    with pytest.raises(ef.errors.InvalidArgumentError, match="Integer division by zero"):
        op(ef.constant([4, 5]), ef.constant([2, 0]))
    with pytest.raises(ef.errors.InvalidArgumentError, match="Integer division by zero"):
        traced(ef.constant([4, 5]), ef.constant([2, 0]))


def test_slices_with_several_tensor_bounds_run_in_graphs():
    """A key holding two different traced tensors (start and stop) binds each to its own
    slot (the executor once compared them with ==, an elementwise op)."""
    @ef.function
    def window(x, start):
        return x[start:start + 3]

    x = np.arange(10)
    for start in (0, 4, 7):
        np.testing.assert_array_equal(window(x, ef.constant(start)).numpy(), x[start:start + 3])
