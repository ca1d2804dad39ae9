"""Numeric checks (eagerflow/ops/debugging.py)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import context

_E = ef.errors.InvalidArgumentError


@pytest.fixture
def checking():
    ef.debugging.enable_check_numerics()
    try:
        yield
    finally:
        ef.debugging.disable_check_numerics()


def test_check_numerics_passes_finite_values_through():
    x = ef.constant([1.0, -2.0])
    y = ef.debugging.check_numerics(x, "weights")
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert ef.debugging.check_numerics(ef.constant([1, 2]), "ints").dtype == ef.int32


def test_check_numerics_raises_naming_the_message():
    with pytest.raises(_E, match=r"^weights : Tensor had NaN values \[Op:CheckNumerics\]$"):
        ef.debugging.check_numerics(ef.constant([1.0, np.nan]), "weights")
    with pytest.raises(_E, match=r"^logits : Tensor had Inf values \[Op:CheckNumerics\]$"):
        ef.debugging.check_numerics(ef.constant([np.inf, 1.0]), "logits")
    with pytest.raises(_E, match=r"Tensor had NaN values"):  # NaN is named first
        ef.debugging.check_numerics(ef.constant([np.inf, np.nan]), "both")


def test_check_numerics_gradient_is_checked_too():
    ef.testing.check_gradients(lambda x: ef.debugging.check_numerics(x * x, "sq"), [1.0, 2.0],
                               order=2)
    x = ef.constant([0.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.debugging.check_numerics(x, "activations")
        z = ef.sqrt(y)  # d/dx sqrt at 0 is inf
    with pytest.raises(_E, match=r"Not a number \(NaN\) or infinity \(Inf\) values detected in "
                                 r"gradient\. activations : Tensor had Inf values"):
        tape.gradient(z, x)


def test_enable_check_numerics_names_the_op_that_made_a_nan(checking):
    with pytest.raises(_E, match=r"^check_numerics: output 0 of Log \(shape \(2,\)\) has NaN "
                                 r"values, first at index \(1,\) \[Op:Log\]$"):
        ef.log(ef.constant([1.0, -1.0]))


def test_enable_check_numerics_names_the_op_that_made_an_inf(checking):
    x = ef.constant([[1.0, 0.0]])
    with pytest.raises(_E, match=r"output 0 of RealDiv \(shape \(1, 2\)\) has Inf values, first "
                                 r"at index \(0, 1\) \[Op:RealDiv\]"):
        ef.divide(1.0, x)
    with pytest.raises(_E, match=r"output 0 of Exp .* has Inf values"):
        ef.exp(ef.constant([1000.0]))


def test_enable_check_numerics_leaves_finite_and_integer_results_alone(checking):
    assert float(ef.reduce_sum(ef.constant([1.0, 2.0]) * 2.0)) == 6.0
    assert ef.floordiv(ef.constant([7]), 2).numpy().tolist() == [3]


def test_enable_check_numerics_also_checks_the_backward_pass(checking):
    x = ef.constant([0.0, 1.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.sqrt(x)
    with pytest.raises(_E, match=r"has Inf values.*\[Op:"):
        tape.gradient(y, x)


def test_disable_check_numerics():
    ef.debugging.enable_check_numerics()
    assert context.flags.check_numerics and context.flags.intercepted
    ef.debugging.disable_check_numerics()
    assert not context.flags.check_numerics and not context.flags.intercepted
    with np.errstate(invalid="ignore"):
        assert np.isnan(ef.log(ef.constant([-1.0])).numpy()).all()
