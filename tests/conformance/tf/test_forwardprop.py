"""TensorFlow's `tensorflow/python/eager/forwardprop_test.py`, ported to eagerflow.

Each test keeps the upstream name and body with names changed (``forwardprop`` ->
``ef.autodiff``, ``def_function.function`` -> ``ef.function``, ``constant_op`` ->
``ef``). Expected values are upstream's own (closed forms, or agreement of forward,
backward and numeric Jacobians); the few literals were recorded from TensorFlow 2.21.

Not ported, because they test TensorFlow internals with no public counterpart:
``testJVPFunction`` and ``testJVPFunctionUsedByAccumulatorForOps`` (``_jvp_dispatch``),
``testFunctionCacheLimited`` (its trace cache), ``testPushPopAccumulatorState``,
``testJVPPacking`` and ``testRecordingWithJVPIndices`` (``forwardprop_util``),
``testShouldRecordAndStopRecord``, ``testRecordingSelectively`` and
``testSpecialForwardFunctionUsed`` (``tape_lib.record_operation*``),
``testMirroredVariableWatched`` (``MirroredStrategy``) and ``testCustomGradientRecomputeGrad``
(``recompute_grad``, not in eagerflow). The Hessian tests loop in Python where upstream
uses ``map_fn``/``vectorized_map`` (not in eagerflow); ``fused_batch_norm`` is composed
from ``moments`` and ``batch_normalization`` and runs NHWC only.
"""

import functools
import gc
import weakref

import numpy as np
import pytest

import eagerflow as ef

_X11_35_DERIVATIVES = [1.1**3.5, 3.5 * 1.1**2.5, 3.5 * 2.5 * 1.1**1.5,
                       3.5 * 2.5 * 1.5 * 1.1**0.5]


def _close(actual, expected, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64),
                               rtol=rtol, atol=atol)


def _jvp(f, primals, tangents):
    with ef.autodiff.ForwardAccumulator(primals, tangents) as acc:
        primals_out = f(*primals)
    return primals_out, acc.jvp(primals_out, unconnected_gradients="zero")


def _jacfwd(f, primals):
    """Jacobians ``[out.size, primal.size]`` of `f` by forward mode, one per primal."""
    jacobians = []
    masks = [ef.zeros_like(p) for p in primals]
    for index, primal in enumerate(primals):
        size = int(np.prod(primal.shape))
        columns = []
        for element in range(size):
            masks[index] = ef.reshape(ef.one_hot(element, size), primal.shape)
            columns.append(ef.reshape(_jvp(f, primals, masks)[1], [-1]))
        jacobians.append(ef.stack(columns, axis=1))
        masks[index] = ef.zeros_like(primal)
    return jacobians


def _jacback(f, primals):
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(primals)
        out = f(*primals)
    return [ef.reshape(tape.jacobian(out, p, unconnected_gradients="zero"),
                       [int(np.prod(out.shape)), -1]) for p in primals]


def _jacnumeric(f, primals, delta):
    jacobians = []
    for index, primal in enumerate(primals):
        base = np.asarray(primal, np.float32)
        columns = []
        for element in range(base.size):
            shifted = []
            for sign in (1, -1):
                value = base.copy().reshape(-1)
                value[element] += sign * delta
                args = list(primals)
                args[index] = ef.constant(value.reshape(base.shape))
                shifted.append(np.asarray(f(*args), np.float64).reshape(-1))
            columns.append((shifted[0] - shifted[1]) / (2 * delta))
        jacobians.append(np.stack(columns, axis=1))
    return jacobians


def _grad(f, argnums=0):
    def _f(*params):
        with ef.GradientTape() as tape:
            tape.watch(params)
            primals_out = f(*params)
        return tape.gradient(primals_out, params[argnums], unconnected_gradients="zero")

    return _f


def _gradfwd(f, argnums=0):
    """The Jacobian of `f` with respect to argument `argnums`, one JVP per element."""

    def _f(*params):
        def _single_jvp(param_mask):
            with ef.autodiff.ForwardAccumulator(primals=[params[argnums]],
                                                tangents=param_mask) as acc:
                primals_out = f(*params)
            return acc.jvp(primals_out)

        size = int(np.prod(params[argnums].shape))
        return ef.stack([_single_jvp([ef.reshape(ef.one_hot(i, size), params[argnums].shape)])
                         for i in range(size)])

    return _f


def _hvp(f, primals, tangents):
    with ef.autodiff.ForwardAccumulator(primals, tangents) as acc:
        with ef.GradientTape() as tape:
            tape.watch(primals)
            f_out = f(*primals)
            assert f_out.shape == ()
        return acc.jvp(tape.gradient(f_out, primals))


def _forward_over_back_hessian(f, params):
    """Rows ``H[i, :]`` split per parameter, by one HVP per one-hot vector (upstream maps
    `_hvp` with ``map_fn``/``vectorized_map``)."""
    sizes = [int(np.prod(p.shape)) for p in params]
    rows = [[] for _ in params]
    for index in range(sum(sizes)):
        onehot = np.zeros(sum(sizes), np.float32)
        onehot[index] = 1.0
        pieces = np.split(onehot, np.cumsum(sizes)[:-1])
        vector = [ef.constant(piece.reshape(p.shape)) for piece, p in zip(pieces, params)]
        for row, value in zip(rows, _hvp(f, params, vector)):
            row.append(value)
    return [ef.stack(row, axis=0) for row in rows]


def _test_gradients(f, primals, order, delta=1e-3, rtol=1e-2, atol=1e-6):
    """Forward, backward and numeric Jacobians of `f`'s [0, `order`)-order gradients agree."""
    if order > 1:
        _test_gradients(_grad(f), primals, order - 1, delta, rtol, atol)
    sym_jac_back = _jacback(f, primals)
    num_jac = _jacnumeric(f, primals, delta)
    sym_jac_fwd = _jacfwd(f, primals)
    for back, numeric, forward in zip(sym_jac_back, num_jac, sym_jac_fwd):
        _close(back, numeric, rtol=rtol, atol=atol)
        _close(forward, numeric, rtol=rtol, atol=atol)
        _close(back, forward, rtol=1e-6, atol=1e-6)  # the symbolic ones agree more closely


# -- ForwardpropTest ----------------------------------------------------------------------
def test_multiple_watches_add():
    x = ef.constant(-2.0)
    with pytest.raises(ValueError, match="multiple times"):
        with ef.autodiff.ForwardAccumulator([x, x], [1.0, 2.0]):
            pass
    with ef.autodiff.ForwardAccumulator([x], [3.0]) as acc:
        _close(3.0, acc.jvp(x))
        y = ef.constant(3.0) * x
    _close(3.0, acc.jvp(x))
    _close(3.0 * 3.0, acc.jvp(y))


def test_reenter():
    x = ef.constant(-2.0)
    with ef.autodiff.ForwardAccumulator(x, 1.5) as acc:
        _close(1.5, acc.jvp(x))
        y = 4.0 * x
        _close(6.0, acc.jvp(y))
        with pytest.raises(ValueError, match="already recording"):
            with acc:
                pass
    z = 4.0 * x
    assert acc.jvp(z) is None
    with acc:
        yy = y * y
    _close(6.0 * -8.0 * 2.0, acc.jvp(yy))


def test_dead_tensors_jvp_cleared():
    x = ef.ones([100])
    x_weak = weakref.ref(x)
    grad_tensor = ef.constant(ef.zeros([100]))
    grad_tensor_weak = weakref.ref(grad_tensor)
    with ef.autodiff.ForwardAccumulator(x, grad_tensor) as acc:
        derived_tensor = ef.constant(2.0) * x
        del grad_tensor
        _close(ef.zeros([100]), acc.jvp(x))
        del x
        assert x_weak() is None
        assert grad_tensor_weak() is None
        derived_tensor_weak = weakref.ref(derived_tensor)
        derived_tensor_grad = acc.jvp(derived_tensor)
        derived_tensor_grad_weak = weakref.ref(derived_tensor_grad)
        del derived_tensor
        del derived_tensor_grad
        assert derived_tensor_weak() is None
        assert derived_tensor_grad_weak() is None


def test_jvp_manual():
    primal, tangent = _jvp(ef.sin, (ef.constant(0.1),), (ef.constant(0.2),))
    _close(ef.sin(0.1), primal)
    _close(ef.cos(0.1) * 0.2, tangent)


def test_numeric_higher_order():
    def f(x):
        pointwise = ef.sin(x) * ef.tan(x)
        return ef.reduce_prod(pointwise + ef.reduce_sum(pointwise), axis=1)

    _test_gradients(f, [ef.constant([[2.0, 3.0], [1.0, 4.0]])], order=3)


def test_custom_gradient():
    @ef.custom_gradient
    def f(x):
        def grad(dy):
            return dy * ef.cos(x)

        return np.sin(x.numpy()), grad

    _test_gradients(f, [ef.constant([1.0, 2.0])], order=3)


def test_exception_in_custom_gradient_not_swallowed():
    @ef.custom_gradient
    def f(unused_x):
        def grad(unused_dy):
            raise ValueError("test_error_string")

        return 1.0, grad

    c = ef.constant(1.0)
    d = ef.constant(2.0)
    with ef.autodiff.ForwardAccumulator(c, d):
        with pytest.raises(ValueError, match="test_error_string"):
            f(c)


@pytest.mark.parametrize("value, op_fn", [(-0.5, ef.nn.elu), ([0.5], ef.nn.elu),
                                          (0.5, ef.nn.silu), ([-0.5], ef.nn.silu)],
                         ids=["EluM5", "EluP5", "SwishP5", "SwishM5"])
def test_elementwise_nn_ops(value, op_fn):
    _test_gradients(op_fn, [ef.constant(value)], order=3)


def _deterministic(layer, input_value):
    layer.build(input_value.shape)
    for v in layer.trainable_variables:
        size = int(np.prod(v.shape))
        v.assign(ef.reshape(ef.range(-1.0, 1.0, 2.0 / size, dtype=ef.float32), v.shape))
    return layer


@pytest.mark.parametrize("value, op_fn, atol", [
    ([[0.1]], functools.partial(ef.layers.Dense, 5), 1e-6),
    (np.reshape(np.arange(start=-1.0, stop=1.0, step=2.0 / (1 * 2 * 4 * 4)), [1, 2, 4, 4]),
     functools.partial(ef.layers.Conv2D, 2, 2), 1e-4),
    ([[0.1], [0.2], [-0.3]], ef.layers.BatchNormalization, 1e-6),
], ids=["Dense", "Conv2D", "BatchNorm"])
def test_keras_layers(value, op_fn, atol):
    input_value = ef.constant(value, dtype=ef.float32)
    layer = _deterministic(op_fn(), input_value)
    # These are linear, so second-order is pretty boring.
    _test_gradients(layer, [input_value], atol=atol, order=2)


_BN_VALUES = [[[0.1], [0.2], [-0.3]], [[[[0.1, 2.0]]], [[[0.2, -3.0]]], [[[-0.3, 4.0]]]]]


@pytest.mark.parametrize("value", _BN_VALUES, ids=["NonFused", "Fused"])
def test_batch_norm(value):
    # eagerflow has one BatchNormalization (no `fused=`): both upstream inputs run on it.
    for training in [True, False]:
        layer = ef.layers.BatchNormalization()
        input_value = ef.constant(value, dtype=ef.float32)
        layer.build(input_value.shape)
        _test_gradients(functools.partial(layer, training=training), [input_value], order=2,
                        atol=1e-3)


@pytest.mark.parametrize("value", _BN_VALUES, ids=["NonFused", "Fused"])
def test_batch_norm_layer_param_grads(value):
    for training in [True, False]:
        layer = ef.layers.BatchNormalization()
        with ef.GradientTape() as tape:
            input_value = ef.constant(value, dtype=ef.float32)
            tape.watch(input_value)
            output = layer(input_value, training=training)
        jac_back = tape.jacobian(output, [input_value] + layer.trainable_variables)
        jac_forward = _jacfwd(lambda *args: layer(args[0], training=training),  # noqa: B023
                              [input_value] + layer.trainable_variables)
        for backward, forward in zip(jac_back, jac_forward):
            _close(backward, ef.reshape(forward, backward.shape), rtol=1e-5, atol=1e-5)


def _fused_batch_norm(x, scale, offset, epsilon, mean=None, variance=None):
    """``tf.nn.fused_batch_norm`` (NHWC) from eagerflow's moments and batch_normalization."""
    if mean is None:
        mean, variance = ef.nn.moments(x, axes=[0, 1, 2])
    return ef.nn.batch_normalization(x, mean, variance, offset, scale, epsilon)


@pytest.mark.parametrize("x_shape, channels, test_back_over_forward",
                         [([4, 2, 2, 3], 3, False), ([2, 1, 1, 2], 2, True)],
                         ids=["NHWC", "NHWCForward"])
def test_fused_batch_norm_grads_training(x_shape, channels, test_back_over_forward):
    # Upstream's NCHW variants are left out: eagerflow's images are NHWC.
    increment = 3.0 / float(np.prod(x_shape))
    x = ef.reshape(ef.range(-2.0, 1.0, increment), x_shape)
    scale = ef.constant([1.0, 1.1, 0.9])[:channels]
    offset = ef.constant([-0.5, -0.6, -0.7])[:channels]

    def _bn_fused(x_arg, scale_arg, offset_arg):
        return _fused_batch_norm(x_arg, scale_arg, offset_arg, 0.001)

    _test_gradients(_bn_fused, [x, scale, offset], order=2, atol=1e-3)
    if test_back_over_forward:
        for argnums in range(3):
            _test_gradients(_gradfwd(_bn_fused, argnums), [x, scale, offset], order=1,
                            atol=1e-3)


def test_fused_batch_norm_grads_inference():
    x_shape = [4, 10, 10, 2]
    increment = 3.0 / float(np.prod(x_shape))
    x = ef.reshape(ef.range(-2.0, 1.0, increment), x_shape)
    scale = ef.constant([1.0, 1.1])
    offset = ef.constant([-0.5, -0.6])
    mean = ef.constant([-1.3, 1.4])
    variance = ef.constant([0.7, 0.9])

    def _bn_fused(x_arg, scale_arg, offset_arg):
        return _fused_batch_norm(x_arg, scale_arg, offset_arg, 0.001, mean, variance)

    _test_gradients(_bn_fused, [x, scale, offset], order=2, atol=1e-2)


@pytest.mark.parametrize("decorator", [ef.function, lambda f: f], ids=["Function", "NoFunction"])
def test_variables_hvp(decorator):
    class _Model(ef.Module):
        def __init__(self):
            super().__init__()
            self._first_dense = ef.layers.Dense(18)
            self._conv = ef.layers.Conv2D(2, 2)
            self._norm = ef.layers.BatchNormalization()
            self._second_dense = ef.layers.Dense(1)

        def __call__(self, x):
            x = self._first_dense(x)
            x = ef.nn.relu(x)
            x = self._norm(x)
            x = ef.nn.relu(self._conv(ef.reshape(x, [-1, 2, 3, 3])))
            return self._second_dense(x)

    ef.random.set_seed(1)
    model = _Model()

    def _loss():
        input_value = ef.constant([[-0.5, 1.0], [0.5, -1.0]])
        target = ef.constant([[-1.0], [2.0]])
        return ef.reduce_sum((model(input_value) - target) ** 2.0)

    _loss()  # builds the layers, so their variables exist before the function is traced

    @decorator
    def _compute_hvps():
        with ef.GradientTape() as tape:
            loss = _loss()
        vector = tape.gradient(loss, model.trainable_variables)
        variable_input_fn = lambda unused_variables: _loss()  # noqa: E731 - upstream's
        (forward_over_back_hvp,) = _hvp(variable_input_fn, [model.trainable_variables],
                                        [vector])
        with ef.GradientTape(persistent=True) as tape:
            tape.watch(model.trainable_variables)
            loss = _loss()
            first_grads = tape.gradient(loss, model.trainable_variables)
        back_over_back_hvp = tape.gradient(first_grads, model.trainable_variables,
                                           output_gradients=vector)
        return forward_over_back_hvp, back_over_back_hvp

    forward, backward = _compute_hvps()
    for f, b in zip(forward, backward):
        _close(f, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("order, expected", list(enumerate(_X11_35_DERIVATIVES)),
                         ids=[f"Order{i}" for i in range(4)])
def test_higher_order_pure_forward(order, expected):
    def _forwardgrad(f):
        def _compute_forwardgrad(primal):
            tangent = ef.constant(1.0)
            with ef.autodiff.ForwardAccumulator(primal, tangent) as acc:
                primal_out = f(primal)
            return acc.jvp(primal_out)

        return _compute_forwardgrad

    def _forward(x):
        return x**3.5

    f = _forward
    primal = ef.constant(1.1)
    for _ in range(order):
        f = _forwardgrad(f)
    _close(expected, f(primal), rtol=1e-5)


@pytest.mark.parametrize("decorator", [ef.function, lambda f: f], ids=["Function", "NoFunction"])
def test_grad_pure_forward(decorator):
    @decorator
    def f(x):
        return x**3.5

    primal = ef.constant(1.1)
    with ef.autodiff.ForwardAccumulator(primal, ef.constant(1.0)) as outer_acc:
        with ef.autodiff.ForwardAccumulator(primal, ef.constant(1.0)) as acc:
            primal_out = f(primal)
    inner_jvp = acc.jvp(primal_out)
    outer_jvp = outer_acc.jvp(inner_jvp)
    _close(1.1**3.5, primal_out, rtol=1e-5)
    _close(3.5 * 1.1**2.5, inner_jvp, rtol=1e-5)
    _close(3.5 * 2.5 * 1.1**1.5, outer_jvp, rtol=1e-5)
    assert acc.jvp(outer_acc.jvp(primal_out)) is None


def test_function_grad_in_function_pure_forward():
    @ef.function
    def take_gradients():
        @ef.function
        def f(x):
            return x**3.5

        primal = ef.constant(1.1)
        with ef.autodiff.ForwardAccumulator(primal, ef.constant(1.0)) as outer_acc:
            with ef.autodiff.ForwardAccumulator(primal, ef.constant(1.0)) as acc:
                primal_out = f(primal)
        inner_jvp = acc.jvp(primal_out)
        outer_jvp = outer_acc.jvp(inner_jvp)
        assert acc.jvp(outer_acc.jvp(primal_out)) is None
        return primal_out, inner_jvp, outer_jvp

    primal_out, inner_jvp, outer_jvp = take_gradients()
    _close(1.1**3.5, primal_out, rtol=1e-5)
    _close(3.5 * 1.1**2.5, inner_jvp, rtol=1e-5)
    _close(3.5 * 2.5 * 1.1**1.5, outer_jvp, rtol=1e-5)


def test_function_grad():
    @ef.function
    def f(x):
        return ef.reduce_prod(ef.tanh(x) ** 2)

    _test_gradients(f, [ef.constant([1.0, 2.0])], order=3)


def test_reusing_jvp():
    m1 = ef.random.uniform((256, 2096))
    m2 = ef.identity(m1)
    tangent1 = ef.random.uniform((256, 2096))
    tangent2 = ef.random.uniform((256, 2096))
    matmul = ef.function(ef.matmul)

    with ef.autodiff.ForwardAccumulator(primals=[m1, m2], tangents=[tangent1, tangent2]) as acc:
        result1 = matmul(m1, m1, transpose_b=True)
        result2 = matmul(m2, m2, transpose_b=True)

    def _expected(mat, tangent):
        return (ef.matmul(tangent, mat, transpose_b=True)
                + ef.matmul(mat, tangent, transpose_b=True))

    _close(result1, result2)
    _close(_expected(m1, tangent1), acc.jvp(result1), rtol=1e-5)
    _close(_expected(m2, tangent2), acc.jvp(result2), rtol=1e-5)


def test_hvp_memory():
    def fun(x):
        return ef.reduce_prod(ef.tanh(x) ** 2)

    primals = ef.constant([1.0, 2.0, 3.0])
    tangents = ef.constant([3.0, 4.0, 5.0])
    _hvp(fun, (primals,), (tangents,))


def test_hvp_correctness():
    def fun(x):
        return ef.reduce_prod(ef.tanh(x) ** 2)

    primals = ef.constant([1.0, 2.0, 3.0])
    tangents = ef.constant([3.0, 4.0, 5.0])
    (forwardback_hvp_eager,) = _hvp(fun, (primals,), (tangents,))
    (forwardback_hvp_function,) = ef.function(_hvp)(fun, (primals,), (tangents,))

    with ef.GradientTape(persistent=True) as g:
        g.watch(primals)
        with ef.GradientTape() as gg:
            gg.watch(primals)
            out = fun(primals)
        grad = ef.unstack(gg.gradient(out, primals))
    hessian = ef.stack([g.gradient(grad[i], primals) for i in range(3)], axis=0)
    backback_hvp = ef.tensordot(hessian, tangents, axes=1)

    _close(backback_hvp, forwardback_hvp_eager, rtol=1e-5)
    _close(backback_hvp, forwardback_hvp_function, rtol=1e-5)
    # TensorFlow 2.21's value of the same product.
    _close([-1.3125438690185547, -0.31380510330200195, -0.06356772780418396],
           forwardback_hvp_eager, rtol=1e-5)


def test_stop_recording_of_a_tape_keeps_the_accumulator():
    # The public half of upstream's testShouldRecordAndStopRecord: TensorFlow 2.21 also
    # keeps recording an accumulator while a tape inside it stops (the JVP is 4.0).
    c = ef.constant(1.0)
    with ef.autodiff.ForwardAccumulator(c, ef.constant(2.0)) as acc:
        with ef.GradientTape() as tape:
            tape.watch(c)
            with tape.stop_recording():
                d = c * 2.0
            _close(4.0, acc.jvp(d))
    assert tape.gradient(d, c) is None


def test_op_with_no_trainable_outputs():
    v = ef.Variable(1.0)
    with ef.autodiff.ForwardAccumulator(v, 11.0):
        v.assign_sub(0.5)
        _close(0.5, v.numpy())


def test_variable_read_in_function():
    v = ef.Variable(1.0)
    with ef.autodiff.ForwardAccumulator(v, 11.0) as acc:
        @ef.function
        def f():
            return v.read_value(), 2.0 * v.read_value()

        result = f()
        _close((1.0, 2.0), result)
        _close((11.0, 22.0), acc.jvp(result))  # TensorFlow 2.21: [11.0, 22.0]


@pytest.mark.parametrize("forward_prop_first", [True, False],
                         ids=["ForwardPropFirst", "TapeFirst"])
def test_forward_over_backward_memory_efficiency(forward_prop_first):
    # Watching depends on nesting, not creation order
    c = ef.constant(1.0)
    if forward_prop_first:
        forward_accumulator = ef.autodiff.ForwardAccumulator(c, 0.1)
        gradient_tape = ef.GradientTape()
    else:
        gradient_tape = ef.GradientTape()
        forward_accumulator = ef.autodiff.ForwardAccumulator(c, 0.1)
    try:
        gc.disable()
        with gradient_tape as tape:
            # Adding and removing the tape multiple times in different nesting
            # patterns does not affect watch ordering.
            pass
        with forward_accumulator as acc:
            with gradient_tape as tape:
                tape.watch(c)
                d = ef.cos(c)
                e = ef.cos(acc.jvp(d))
                ef.cos(e)
                weak_e = weakref.ref(e)
                del e
                assert weak_e() is None
            assert tape.gradient(acc.jvp(d), c) is None
    finally:
        gc.enable()


@pytest.mark.parametrize("forward_prop_first", [True, False],
                         ids=["ForwardPropFirst", "TapeFirst"])
@pytest.mark.filterwarnings("ignore:Calling GradientTape.gradient")  # upstream calls it inside
def test_backward_over_forward(forward_prop_first):
    c = ef.constant(1.0)
    # Watching depends on nesting, not creation order
    if forward_prop_first:
        forward_accumulator = ef.autodiff.ForwardAccumulator(c, 0.1)
        gradient_tape = ef.GradientTape()
    else:
        gradient_tape = ef.GradientTape()
        forward_accumulator = ef.autodiff.ForwardAccumulator(c, 0.1)
    with gradient_tape as tape:
        with forward_accumulator as acc:
            tape.watch(c)
            d = ef.cos(c)
        _close(-0.1 * ef.cos(1.0), tape.gradient(acc.jvp(d), c))


def test_variable_watched():
    v = ef.Variable([1.0, 2.0, 3.0])
    with ef.autodiff.ForwardAccumulator(v, ef.constant([0.1, -0.2, 0.3])) as acc:
        _close([0.1, -0.2, 0.3], acc.jvp(v))
        x = v * 2.0
        _close([0.2, -0.4, 0.6], acc.jvp(x))
        x2 = v + 0.1
        _close([0.1, -0.2, 0.3], acc.jvp(x2))


def test_unconnected_gradients():
    x = ef.constant(-1.0)
    with ef.autodiff.ForwardAccumulator(x, 0.1) as acc:
        _close(0.1, acc.jvp(x, unconnected_gradients="zero"))
        _close(0.1, acc.jvp(x, unconnected_gradients="none"))
        y = ef.constant(-2.0)
        _close(0.0, acc.jvp(y, unconnected_gradients="zero"))
        assert acc.jvp(y, unconnected_gradients="none") is None


def test_variable_watched_function():
    class _Model(ef.Module):
        def __init__(self):
            super().__init__()
            self._v = None

        @ef.function
        def compute_jvps(self):
            if self._v is None:
                self._v = ef.Variable([1.0, 2.0, 3.0])
            with ef.autodiff.ForwardAccumulator(self._v, ef.constant([0.1, -0.2, 0.3])) as acc:
                x = self._v * 2.0
                x2 = self._v + 0.1
            return acc.jvp((self._v, x, x2))

    model = _Model()
    v_jvp, x_jvp, x2_jvp = model.compute_jvps()
    _close([0.1, -0.2, 0.3], v_jvp)
    _close([0.2, -0.4, 0.6], x_jvp)
    _close([0.1, -0.2, 0.3], x2_jvp)


def test_argument_unused():
    v = ef.constant(1.0)
    with ef.autodiff.ForwardAccumulator(v, 11.0) as acc:
        @ef.function
        def _f(x):
            del x
            return ef.constant(1.0)

        result = _f(v)
        _close(1.0, result)
        assert acc.jvp(result) is None


# -- ControlFlowTests ---------------------------------------------------------------------
@ef.function
def _has_loop(iters, y):
    ret = 0.0
    for i in ef.range(iters):
        ret += y * ef.cast(i, ef.float32)
    return ret


@ef.function
def _has_cond(k, y):
    if k > 1:
        ret = 3.0 * y
    else:
        ret = 0.0
    return ret


@ef.function
def _fprop_while(iters, y):
    with ef.autodiff.ForwardAccumulator(y, 1.0) as acc:
        ret = 0.0
        for i in ef.range(iters):
            ret += y * ef.cast(i, ef.float32)
    return acc.jvp(ret)


@ef.function
def _fprop_cond(k, y):
    with ef.autodiff.ForwardAccumulator(y, 1.0) as acc:
        if k > 1:
            ret = 3.0 * y
        else:
            ret = 0.0
    return acc.jvp(ret)


@pytest.mark.xfail(strict=True, raises=ef.errors.UnimplementedError, reason=(
    "the JVP of an ef.function call is its gradient transposed, which differentiates the "
    "loop's gradient: second order through a traced ef.while_loop is refused"))
def test_of_function_while():
    y = ef.constant(1.0)
    with ef.autodiff.ForwardAccumulator(y, 1.0) as acc:
        _close(10.0, acc.jvp(_has_loop(ef.constant(5), y)))


def test_of_function_cond():
    y = ef.constant(1.0)
    with ef.autodiff.ForwardAccumulator(y, 1.0) as acc:
        _close(3.0, acc.jvp(_has_cond(ef.constant(5), y)))
        _close(0.0, acc.jvp(_has_cond(ef.constant(0), y)))


def test_in_function_while():
    _close(10.0, _fprop_while(ef.constant(5), ef.constant(1.0)))


def test_in_function_cond():
    _close(3.0, _fprop_cond(ef.constant(5), ef.constant(1.0)))
    _close(0.0, _fprop_cond(ef.constant(0), ef.constant(1.0)))


# -- HessianTests -------------------------------------------------------------------------
def test_hessian_1d():
    m = 4
    rng = np.random.RandomState([1, 2, 3])
    mat_value = rng.randn(m, m).astype("float32")
    x_value = rng.randn(m).astype("float32")
    hess_value = mat_value + mat_value.T
    mat = ef.Variable(mat_value)

    def _f(x):
        return ef.reduce_sum(x[:, None] * mat * x[None, :])

    (hessian_eager,) = _forward_over_back_hessian(_f, [ef.constant(x_value)])
    _close(hess_value, hessian_eager, rtol=1e-5, atol=1e-5)
    (hessian_function,) = ef.function(_forward_over_back_hessian)(_f, [ef.constant(x_value)])
    _close(hess_value, hessian_function, rtol=1e-5, atol=1e-5)


def test_hessian_of_variables():
    model = ef.layers.Dense(1)
    model.build([None, 2])
    model.kernel.assign([[0.5], [-1.0]])
    model.bias.assign([0.25])

    def _loss(*unused_args):
        input_value = ef.constant([[-0.5, 1.0], [0.5, -1.0]])
        target = ef.constant([[-1.0], [2.0]])
        return ef.reduce_sum((model(input_value) - target) ** 2.0)

    kernel_hess, bias_hess = _forward_over_back_hessian(_loss, [model.kernel, model.bias])
    # 3 total parameters, the whole hessian is the 3x3 concatenation
    assert kernel_hess.shape == (3, 2, 1)
    assert bias_hess.shape == (3, 1)
    full_hessian = ef.concat([ef.reshape(kernel_hess, [3, 2]), bias_hess], axis=1)
    # The full Hessian should be symmetric.
    _close(full_hessian, ef.transpose(full_hessian))
    # TensorFlow 2.21, the same loss with tf.Variables of these values.
    _close([[1.0, -2.0, 0.0], [-2.0, 4.0, 0.0], [0.0, 0.0, 4.0]], full_hessian)
