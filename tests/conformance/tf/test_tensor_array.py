"""Cases of TensorFlow's `tensor_array_ops_test.py` and `map_fn_test.py` on
`ef.TensorArray` and `ef.map_fn`, with the values and exception classes of TF 2.21."""

import pytest

import eagerflow as ef


def test_dynamic_array_written_in_a_graph_loop():
    @ef.function
    def squares(n):
        ta = ef.TensorArray(ef.float32, size=0, dynamic_size=True)
        for i in ef.range(n):
            ta = ta.write(i, ef.cast(i * i, ef.float32))
        return ta.stack()

    assert squares(ef.constant(4)).numpy().tolist() == [0.0, 1.0, 4.0, 9.0]  # TF
    assert squares(ef.constant(0)).numpy().tolist() == []  # TF


def test_element_shape_learned_from_the_first_write_in_a_loop():
    @ef.function
    def doubled(x):
        ta = ef.TensorArray(ef.float32, size=0, dynamic_size=True)
        for i in ef.range(ef.shape(x)[0]):
            ta = ta.write(i, x[i] * 2.0)
        return ta.stack(), ta.size()

    stacked, size = doubled(ef.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    assert stacked.numpy().tolist() == [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]]  # TF
    assert int(size) == 3  # TF


def test_fixed_size_array_in_a_while_loop():
    @ef.function
    def f(x):
        ta = ef.TensorArray(ef.float32, size=3)
        i = ef.constant(0)
        while i < 3:
            ta = ta.write(i, ef.reduce_sum(x) * ef.cast(i, ef.float32))
            i += 1
        return ta.stack(), ta.read(1)

    stacked, one = f(ef.constant([1.0, 2.0]))
    assert stacked.numpy().tolist() == [0.0, 3.0, 6.0] and float(one) == 3.0  # TF


def test_element_shape_given():
    @ef.function
    def f(x):
        ta = ef.TensorArray(ef.float32, size=0, dynamic_size=True, element_shape=[2])
        for i in ef.range(3):
            ta = ta.write(i, x + ef.cast(i, ef.float32))
        return ta.stack()

    assert f(ef.constant([1.0, 2.0])).numpy().tolist() == [[1.0, 2.0], [2.0, 3.0], [3.0, 4.0]]


def test_eager_methods():
    ta = ef.TensorArray(ef.int32, size=2).write(0, 5).write(1, 7)
    assert ta.stack().numpy().tolist() == [5, 7] and int(ta.read(1)) == 7  # TF
    assert int(ta.size()) == 2 and ta.dtype == ef.int32
    u = ef.TensorArray(ef.float32, size=3).unstack(ef.constant([[1.0, 2.0], [3.0, 4.0],
                                                                [5.0, 6.0]]))
    assert u.read(2).numpy().tolist() == [5.0, 6.0]  # TF
    assert u.gather([0, 2]).numpy().tolist() == [[1.0, 2.0], [5.0, 6.0]]  # TF
    assert u.concat().numpy().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]  # TF
    assert u.element_shape == (2,)
    assert ef.TensorArray(ef.float32, size=0).stack().shape == (0,)  # TF


def test_write_errors():
    with pytest.raises(ef.errors.OutOfRangeError, match="not resizeable"):  # TF: OutOfRange
        ef.TensorArray(ef.int32, size=2).write(2, 5)
    with pytest.raises(ValueError, match="incompatible"):  # TF: ValueError
        ef.TensorArray(ef.float32, size=2).write(0, [1.0, 2.0]).write(1, [1.0])
    with pytest.raises(ef.errors.InvalidArgumentError):  # TF: InvalidArgumentError
        ef.TensorArray(ef.int32, size=2).write(0, 1.5)
    with pytest.raises(ef.errors.InvalidArgumentError, match="one element at a time"):
        ef.TensorArray(ef.int32, size=0, dynamic_size=True).write(3, 1)
    with pytest.raises(ValueError, match="size must be given"):
        ef.TensorArray(ef.int32)


def test_gradient_through_a_fixed_size_array():
    @ef.function
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            ta = ef.TensorArray(ef.float32, size=3)
            for i in ef.range(3):
                ta = ta.write(i, x * ef.cast(i + 1, ef.float32))
            y = ef.reduce_sum(ta.stack() ** 2)
        return y, tape.gradient(y, x)

    y, dx = f(ef.constant([1.0, 2.0]))
    assert float(y) == 70.0 and dx.numpy().tolist() == [28.0, 56.0]  # TF


def test_map_fn():
    assert ef.map_fn(lambda r: ef.reduce_sum(r), ef.constant([[1, 2], [3, 4]])).numpy(
    ).tolist() == [3, 7]  # TF
    doubled, summed = ef.map_fn(lambda p: (p[0] * 2, p[1] + p[0]),
                                (ef.constant([1.0, 2.0]), ef.constant([3.0, 4.0])))
    assert doubled.numpy().tolist() == [2.0, 4.0] and summed.numpy().tolist() == [4.0, 6.0]
    squares = ef.function(lambda x: ef.map_fn(lambda r: r * r, x))
    assert squares(ef.constant([1.0, 2.0, 3.0])).numpy().tolist() == [1.0, 4.0, 9.0]  # TF


def test_map_fn_over_an_unknown_number_of_rows():
    @ef.function(input_signature=[ef.TensorSpec([None, 2])])
    def sums(x):
        return ef.map_fn(lambda r: ef.reduce_sum(r), x,
                         fn_output_signature=ef.TensorSpec([], ef.float32))

    rows = ef.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert sums(rows).numpy().tolist() == [3.0, 7.0, 11.0]  # TF
    bare = ef.function(lambda x: ef.map_fn(ef.reduce_sum, x),
                       input_signature=[ef.TensorSpec([None, 2])])
    with pytest.raises(ef.errors.InvalidArgumentError, match="fn_output_signature"):
        bare(rows)


def test_scatter():
    ta = ef.TensorArray(ef.float32, size=3).scatter([2, 0], ef.constant([[1.0], [2.0]]))
    assert ta.stack().numpy().tolist() == [[2.0], [0.0], [1.0]]  # TF
