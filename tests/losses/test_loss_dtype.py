"""`Loss(dtype=...)`: the dtype targets and predictions are cast to before `call`, as in
Keras 3 (default `ef.backend.floatx()`). Expected values recorded from Keras 3.15 with
`keras.losses.<Name>(dtype=d)(y_true, y_pred)` on the float64 NumPy arrays below."""

import numpy as np
import pytest

import eagerflow as ef

Y_TRUE = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
Y_PRED = np.array([[0.2, 0.7, 0.1], [0.6, 0.3, 0.1]])
LABELS = np.array([1, 0])
SPARSE = ("SparseCategoricalCrossentropy", "CategoricalGeneralizedCrossEntropy")

# (class name, dtype argument, result dtype, value) from Keras 3.15
KERAS = [
    ('MeanSquaredError', None, 'float32', 0.06666667014360428),
    ('MeanSquaredError', 'float16', 'float16', 0.066650390625),
    ('MeanSquaredError', 'float64', 'float64', 0.06666666666666668),
    ('MeanAbsoluteError', None, 'float32', 0.23333334922790527),
    ('MeanAbsoluteError', 'float16', 'float16', 0.2332763671875),
    ('MeanAbsoluteError', 'float64', 'float64', 0.23333333333333334),
    ('MeanAbsolutePercentageError', None, 'float32', 116666680.0),
    ('MeanAbsolutePercentageError', 'float16', 'float16', np.inf),
    ('MeanAbsolutePercentageError', 'float64', 'float64', 116666678.33333334),
    ('MeanSquaredLogarithmicError', None, 'float32', 0.03274158760905266),
    ('MeanSquaredLogarithmicError', 'float16', 'float16', 0.03271484375),
    ('MeanSquaredLogarithmicError', 'float64', 'float64', 0.032741589661172174),
    ('Hinge', None, 'float32', 0.8999999761581421),
    ('Hinge', 'float16', 'float16', 0.89990234375),
    ('Hinge', 'float64', 'float64', 0.9000000000000001),
    ('SquaredHinge', None, 'float32', 0.9666666984558105),
    ('SquaredHinge', 'float16', 'float16', 0.96630859375),
    ('SquaredHinge', 'float64', 'float64', 0.9666666666666668),
    ('CategoricalHinge', None, 'float32', 0.6000000238418579),
    ('CategoricalHinge', 'float16', 'float16', 0.60009765625),
    ('CategoricalHinge', 'float64', 'float64', 0.6),
    ('CosineSimilarity', None, 'float32', -0.9186155796051025),
    ('CosineSimilarity', 'float16', 'float16', -0.9189453125),
    ('CosineSimilarity', 'float64', 'float64', -0.9186155406725316),
    ('Huber', None, 'float32', 0.03333333507180214),
    ('Huber', 'float16', 'float16', 0.0333251953125),
    ('Huber', 'float64', 'float64', 0.03333333333333334),
    ('LogCosh', None, 'float32', 0.032747745513916016),
    ('LogCosh', 'float16', 'float16', 0.032470703125),
    ('LogCosh', 'float64', 'float64', 0.0327477438825146),
    ('KLDivergence', None, 'float32', 0.43374741077423096),
    ('KLDivergence', 'float16', 'float16', 0.43310546875),
    ('KLDivergence', 'float64', 'float64', 0.43374743116227654),
    ('Poisson', None, 'float32', 0.4779167175292969),
    ('Poisson', 'float16', 'float16', 0.47802734375),
    ('Poisson', 'float64', 'float64', 0.47791670969682304),
    ('BinaryCrossentropy', None, 'float32', 0.2763400077819824),
    ('BinaryCrossentropy', 'float16', 'float16', 0.2763671875),
    ('BinaryCrossentropy', 'float64', 'float64', 0.27634001571221967),
    ('CategoricalCrossentropy', None, 'float32', 0.4337502717971802),
    ('CategoricalCrossentropy', 'float16', 'float16', 0.43359375),
    ('CategoricalCrossentropy', 'float64', 'float64', 0.43375028385236136),
    ('BinaryFocalCrossentropy', None, 'float32', 0.026161089539527893),
    ('BinaryFocalCrossentropy', 'float16', 'float16', 0.0261383056640625),
    ('BinaryFocalCrossentropy', 'float64', 'float64', 0.02616109034620922),
    ('CategoricalFocalCrossentropy', None, 'float32', 0.014229103922843933),
    ('CategoricalFocalCrossentropy', 'float16', 'float16', 0.01421356201171875),
    ('CategoricalFocalCrossentropy', 'float64', 'float64', 0.014229105594630542),
    ('Dice', None, 'float32', 0.3500000238418579),
    ('Dice', 'float16', 'float16', 0.349609375),
    ('Dice', 'float64', 'float64', 0.35000001624999977),
    ('Tversky', None, 'float32', 0.3500000238418579),
    ('Tversky', 'float16', 'float16', 0.349609375),
    ('Tversky', 'float64', 'float64', 0.35000003249999845),
    ('SparseCategoricalCrossentropy', None, 'float32', 0.4337502717971802),
    ('CategoricalGeneralizedCrossEntropy', None, 'float32', 0.3887432813644409),
    ('SparseCategoricalCrossentropy', 'float16', 'float16', 0.43359375),
    ('CategoricalGeneralizedCrossEntropy', 'float16', 'float16', 0.38818359375),
    ('SparseCategoricalCrossentropy', 'float64', 'float64', 0.43375028385236164),
    ('CategoricalGeneralizedCrossEntropy', 'float64', 'float64', 0.38874330422444103),
]
TOLERANCE = {"float16": 2e-3, "float32": 1e-6, "float64": 1e-12}


@pytest.mark.parametrize("name, dtype, result_dtype, expected", KERAS,
                         ids=[f"{row[0]}-{row[1]}" for row in KERAS])
def test_matches_keras(name, dtype, result_dtype, expected):
    loss = getattr(ef.losses, name)(**({} if dtype is None else {"dtype": dtype}))
    assert loss.dtype == result_dtype
    value = loss(LABELS if name in SPARSE else Y_TRUE, Y_PRED)
    assert value.dtype == result_dtype
    if np.isinf(expected):
        assert np.isinf(float(value))
    else:
        np.testing.assert_allclose(float(value), expected, rtol=TOLERANCE[result_dtype])


def test_default_follows_floatx():
    ef.backend.set_floatx("float64")
    try:
        loss = ef.losses.MeanSquaredError()
    finally:
        ef.backend.set_floatx("float32")
    assert loss.dtype == "float64"
    assert ef.losses.MeanSquaredError()(Y_TRUE, Y_PRED).dtype == np.float32


def test_gradient_in_float64():
    loss = ef.losses.CategoricalCrossentropy(from_logits=True, dtype="float64")
    ef.testing.check_gradients(lambda p: loss(Y_TRUE, p), Y_PRED, order=2)


def test_wrapped_function_takes_dtype():
    loss = ef.losses.LossFunctionWrapper(ef.losses.mean_squared_error, dtype="float64")
    assert loss(Y_TRUE, Y_PRED).dtype == np.float64


@pytest.mark.parametrize("dtype, message", [
    ("bfloat16", "NumPy has no bfloat16"), ("int32", "must be a floating dtype"),
    ("no_such_type", "must be a floating dtype"), (3, "must be a floating dtype")])
def test_refused_dtypes(dtype, message):
    with pytest.raises(TypeError, match=message):
        ef.losses.Huber(dtype=dtype)
