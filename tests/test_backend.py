"""`ef.backend`: Keras 3's settings, with Keras 3.15's values and messages."""

import numpy as np
import pytest

import eagerflow as ef


@pytest.fixture(autouse=True)
def _restore_settings():
    yield
    ef.backend.set_floatx("float32")
    ef.backend.set_epsilon(1e-7)
    ef.backend.set_image_data_format("channels_last")


def test_defaults_are_keras_s():
    assert ef.backend.epsilon() == 1e-07
    assert ef.backend.floatx() == "float32"
    assert ef.backend.image_data_format() == "channels_last"
    assert ef.backend.backend() == "eagerflow"


def test_floatx_is_the_default_dtype_of_layers_inputs_and_initializers():
    ef.backend.set_floatx("float64")
    dense = ef.layers.Dense(2)
    dense.build((None, 3))
    assert dense.kernel.dtype == np.float64
    assert ef.Input((3,)).dtype == np.float64
    assert ef.initializers.GlorotUniform()((2, 2)).dtype == np.float64
    assert ef.layers.Dense(2, dtype="float32").dtype == np.float32  # an explicit dtype wins


def test_set_floatx_refuses_what_keras_refuses():
    with pytest.raises(ValueError, match="Unknown `floatx` value: int32"):
        ef.backend.set_floatx("int32")
    with pytest.raises(ValueError, match="Unknown `floatx` value"):
        ef.backend.set_floatx(np.float64)  # Keras takes names only
    with pytest.raises(ValueError, match="bfloat16 has no NumPy dtype"):
        ef.backend.set_floatx("bfloat16")
    assert ef.backend.floatx() == "float32"


def test_image_data_format():
    with pytest.raises(ValueError, match="must be one of"):
        ef.backend.set_image_data_format("channels_middle")
    with pytest.raises(ValueError, match="channels-last images"):
        ef.backend.set_image_data_format("channels_first")
    assert ef.backend.image_data_format() == "channels_last"


def test_set_epsilon_refuses_what_is_not_a_number():
    ef.backend.set_epsilon(1e-3)
    assert ef.backend.epsilon() == 1e-3
    with pytest.raises(ValueError, match="expects a number"):
        ef.backend.set_epsilon("a")
    with pytest.raises(ValueError, match="finite"):
        ef.backend.set_epsilon(float("nan"))


def test_clear_session_and_get_uid_count_as_keras():
    # Keras 3.15: after clear_session, Dense -> "dense"; get_uid("dense") -> 2, 3; the next
    # Dense is "dense_3"; get_uid() counts the empty prefix from 1.
    ef.backend.clear_session()
    assert ef.layers.Dense(1).name == "dense"
    assert (ef.backend.get_uid("dense"), ef.backend.get_uid("dense")) == (2, 3)
    assert ef.layers.Dense(1).name == "dense_3"
    assert (ef.backend.get_uid(), ef.backend.get_uid()) == (1, 2)
    ef.backend.clear_session()


@pytest.mark.parametrize("dtype, name", [
    (None, "float32"), (float, "float32"), (int, "int64"), (bool, "bool"),
    (np.float64, "float64"), ("int8", "int8"), ("uint8", "uint8"), ("string", "string"),
])
def test_standardize_dtype_as_keras(dtype, name):
    assert ef.backend.standardize_dtype(dtype) == name


@pytest.mark.parametrize("dtype", ["float", "str"])
def test_standardize_dtype_refuses_as_keras(dtype):
    with pytest.raises(ValueError, match="Invalid dtype"):
        ef.backend.standardize_dtype(dtype)


def test_dtype_predicates():
    assert ef.backend.is_float_dtype("float16")
    assert ef.backend.is_int_dtype("uint8")
    assert not ef.backend.is_int_dtype("bool")


def test_set_epsilon_is_the_clipping_margin_of_the_losses():
    # Keras 3.15 with set_epsilon(1e-3), y_true [[0, 1]], y_pred [[0, 1]] (float32):
    # categorical 0.00100049, binary 0.00100049, KL divergence 0.
    ef.backend.set_epsilon(1e-3)
    y, p = np.array([[0.0, 1.0]]), np.array([[0.0, 1.0]], "float32")
    np.testing.assert_allclose(ef.losses.categorical_crossentropy(y, p).numpy(), [0.00100049],
                               rtol=1e-4)
    np.testing.assert_allclose(ef.losses.binary_crossentropy(y, p).numpy(), [0.00100049],
                               rtol=1e-4)
    np.testing.assert_allclose(ef.losses.kl_divergence(y, p).numpy(), [0.0], atol=1e-7)
