"""Cross-entropies against hand-computed NumPy values of Keras 3's (TF backend) formulas."""

import numpy as np
import pytest

import eagerflow as ef

EPS = 1e-7
RNG = np.random.default_rng(0)
LOGITS = (RNG.standard_normal((6, 4)) * 3).astype(np.float32)
LABELS = np.array([0, 3, 1, 2, 2, 0])
ONE_HOT = np.eye(4, dtype=np.float32)[LABELS]
TARGETS = RNG.integers(0, 2, (6, 4)).astype(np.float32)
PROBS = RNG.uniform(0, 1, (6, 4)).astype(np.float32)


def _log_softmax(x):
    x = x.astype(np.float64)
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def _bce(z, p):
    p = np.clip(p.astype(np.float64), EPS, 1 - EPS)
    return -(z * np.log(p) + (1 - z) * np.log(1 - p))


# -- binary -----------------------------------------------------------------------------------
def test_binary_crossentropy_on_probabilities():
    np.testing.assert_allclose(ef.losses.binary_crossentropy(TARGETS, PROBS).numpy(),
                               _bce(TARGETS, PROBS).mean(-1), rtol=1e-5)


def test_binary_crossentropy_on_logits():
    exact = np.log1p(np.exp(-np.abs(LOGITS.astype(np.float64)))) + np.maximum(LOGITS, 0) \
        - LOGITS * TARGETS
    np.testing.assert_allclose(
        ef.losses.binary_crossentropy(TARGETS, LOGITS, from_logits=True).numpy(),
        exact.mean(-1), rtol=1e-5)


def test_binary_label_smoothing():
    smoothed = TARGETS * 0.8 + 0.1
    np.testing.assert_allclose(
        ef.losses.binary_crossentropy(TARGETS, PROBS, label_smoothing=0.2).numpy(),
        _bce(smoothed, PROBS).mean(-1), rtol=1e-5)


def test_binary_class_with_sample_weight_and_reductions():
    weights = np.array([1.0, 0.0, 2.0, 0.5, 1.0, 1.0], np.float32)
    per_sample = _bce(TARGETS, PROBS).mean(-1)
    for reduction, expected in [
        ("sum_over_batch_size", (per_sample * weights).sum() / 6),
        ("mean", (per_sample * weights).sum() / 6),
        ("sum", (per_sample * weights).sum()),
        ("mean_with_sample_weight", (per_sample * weights).sum() / weights.sum()),
    ]:
        loss = ef.losses.BinaryCrossentropy(reduction=reduction)
        np.testing.assert_allclose(float(loss(TARGETS, PROBS, sample_weight=weights)), expected,
                                   rtol=1e-5, err_msg=reduction)
    none = ef.losses.BinaryCrossentropy(reduction="none")(TARGETS, PROBS, sample_weight=weights)
    np.testing.assert_allclose(none.numpy(), per_sample * weights, rtol=1e-5)


# -- categorical ------------------------------------------------------------------------------
def test_categorical_crossentropy_on_logits():
    expected = -(ONE_HOT * _log_softmax(LOGITS)).sum(-1)
    np.testing.assert_allclose(
        ef.losses.categorical_crossentropy(ONE_HOT, LOGITS, from_logits=True).numpy(),
        expected, rtol=1e-5)


def test_categorical_crossentropy_normalises_then_clips_probabilities():
    normalised = np.clip(PROBS / PROBS.sum(-1, keepdims=True), EPS, 1 - EPS)
    expected = -(ONE_HOT * np.log(normalised)).sum(-1)
    np.testing.assert_allclose(ef.losses.categorical_crossentropy(ONE_HOT, PROBS).numpy(),
                               expected, rtol=1e-5)


def test_categorical_label_smoothing_and_axis():
    smoothed = ONE_HOT * 0.9 + 0.1 / 4
    expected = -(smoothed * _log_softmax(LOGITS)).sum(-1)
    got = ef.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1,
                                            reduction="none")(ONE_HOT, LOGITS)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5)
    by_columns = ef.losses.categorical_crossentropy(ONE_HOT.T, LOGITS.T, from_logits=True,
                                                    axis=0)
    np.testing.assert_allclose(by_columns.numpy(), -(ONE_HOT * _log_softmax(LOGITS)).sum(-1),
                               rtol=1e-5)


# -- sparse -----------------------------------------------------------------------------------
# Keras 3.15 (TF backend): CategoricalCrossentropy(from_logits, label_smoothing) of these
# logits (or of their softmax) with sample weights, and its gradient with respect to the
# logits (tf.GradientTape), per label_smoothing: (loss, gradient).
KERAS_CCE_LOGITS = np.array(
    [[0.831184446811676, 0.9213835000991821, -0.45561763644218445, 1.5149729251861572,
      -1.2465931177139282],
     [0.8617230653762817, 0.4939320683479309, 0.8736191391944885, 1.8790082931518555,
      1.4844454526901245],
     [-1.145176887512207, -1.688671588897705, 0.8168890476226807, -1.0150123834609985,
      -0.012405388988554478],
     [0.8397274613380432, -1.6437973976135254, -2.109980344772339, 0.25929901003837585,
      0.044385891407728195]], np.float32)
KERAS_CCE = {
    0.0: (2.0484790802001953, [
        [-0.1941605508327484, 0.0611102469265461, 0.015420200303196907, 0.1106385886669159,
         0.006991553120315075],
        [0.01704413630068302, 0.011799003928899765, 0.017248103395104408,
         -0.07786144316196442, 0.03177019581198692],
        [0.03864588588476181, -0.4775577485561371, 0.27492719888687134, 0.044018276035785675,
         0.11996641755104065],
        [0.0, 0.0, 0.0, 0.0, 0.0]]),
    0.2: (1.985417127609253, [
        [-0.15416055917739868, 0.051110245287418365, 0.005420200526714325, 0.10063859075307846,
         -0.003008446656167507],
        [0.01204413641244173, 0.006799004040658474, 0.012248103506863117, -0.05786144360899925,
         0.026770196855068207],
        [0.018645886331796646, -0.3975577652454376, 0.2549271881580353, 0.02401827648282051,
         0.09996642172336578],
        [0.0, 0.0, 0.0, 0.0, 0.0]]),
}


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("from_logits", [True, False])
@pytest.mark.parametrize("smoothing", sorted(KERAS_CCE))
def test_categorical_crossentropy_gradients_match_keras(smoothing, from_logits, traced):
    labels = np.eye(5, dtype=np.float32)[[0, 3, 1, 4]]
    sample_weight = np.array([1.0, 0.5, 2.0, 0.0], np.float32)
    loss_fn = ef.losses.CategoricalCrossentropy(from_logits=from_logits,
                                                label_smoothing=smoothing)

    def loss_and_grad(z):
        with ef.GradientTape() as tape:
            tape.watch(z)
            pred = z if from_logits else ef.nn.softmax(z)  # (the softmax's logits are used)
            loss = loss_fn(labels, pred, sample_weight=sample_weight)
        return loss, tape.gradient(loss, z)

    fn = ef.function(loss_and_grad) if traced else loss_and_grad
    loss, grad = fn(ef.constant(KERAS_CCE_LOGITS))
    want_loss, want_grad = KERAS_CCE[smoothing]
    np.testing.assert_allclose(float(loss), want_loss, rtol=1e-6)
    np.testing.assert_allclose(grad.numpy(), want_grad, rtol=1e-5, atol=1e-7)


def test_sparse_categorical_crossentropy_on_logits():
    expected = -_log_softmax(LOGITS)[np.arange(6), LABELS]
    np.testing.assert_allclose(
        ef.losses.sparse_categorical_crossentropy(LABELS, LOGITS, from_logits=True).numpy(),
        expected, rtol=1e-5)


def test_sparse_categorical_crossentropy_on_probabilities_matches_keras_tf_backend():
    # Keras (TF backend): clip, take the log, then a softmax cross-entropy of those logits.
    expected = -_log_softmax(np.log(np.clip(PROBS, EPS, 1 - EPS)))[np.arange(6), LABELS]
    np.testing.assert_allclose(ef.losses.sparse_categorical_crossentropy(LABELS, PROBS).numpy(),
                               expected, rtol=1e-5)


@pytest.mark.parametrize("labels", [LABELS[:, None], LABELS.astype(np.float32),
                                    ef.constant(LABELS.astype(np.int64))])
def test_sparse_label_forms(labels):
    expected = -_log_softmax(LOGITS)[np.arange(6), LABELS].mean()
    loss = ef.losses.SparseCategoricalCrossentropy(from_logits=True)
    np.testing.assert_allclose(float(loss(labels, LOGITS)), expected, rtol=1e-5)


def test_sparse_on_sequences():
    logits = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    labels = RNG.integers(0, 5, (2, 3))
    expected = -np.take_along_axis(_log_softmax(logits), labels[..., None], -1)[..., 0]
    got = ef.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5)
    # One weight per sequence weighs every step of it.
    weighted = ef.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum")(
        labels, logits, sample_weight=[1.0, 0.0])
    np.testing.assert_allclose(float(weighted), expected[0].sum(), rtol=1e-5)


def test_sparse_softmax_cross_entropy_tf1_form():
    losses = -_log_softmax(LOGITS)[np.arange(6), LABELS]
    np.testing.assert_allclose(float(ef.losses.sparse_softmax_cross_entropy(LABELS, LOGITS)),
                               losses.mean(), rtol=1e-5)
    weights = np.array([1.0, 0.0, 2.0, 0.0, 1.0, 1.0], np.float32)
    np.testing.assert_allclose(
        float(ef.losses.sparse_softmax_cross_entropy(LABELS, LOGITS, weights=weights)),
        (losses * weights).sum() / 4, rtol=1e-5)
    assert float(ef.losses.sparse_softmax_cross_entropy(LABELS, LOGITS, weights=0.0)) == 0.0


# -- stability --------------------------------------------------------------------------------
def test_probabilities_of_exactly_zero_and_one_stay_finite():
    p = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)
    wrong = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], np.float32)
    for loss in (ef.losses.binary_crossentropy(wrong, p),
                 ef.losses.categorical_crossentropy(wrong, p),
                 ef.losses.sparse_categorical_crossentropy([0, 1], p)):
        values = loss.numpy()
        assert np.isfinite(values).all() and (values > 5).all()
    perfect = ef.losses.categorical_crossentropy(p, p).numpy()
    assert np.isfinite(perfect).all() and (perfect < 1e-5).all()
    variable = ef.Variable(p)
    with ef.GradientTape() as tape:
        value = ef.losses.BinaryCrossentropy()(wrong, variable)
    assert np.isfinite(tape.gradient(value, variable).numpy()).all()


@pytest.mark.parametrize("make", [
    lambda z: ef.losses.BinaryCrossentropy(from_logits=True)(
        [[1.0, 0.0, 1.0, 0.0]], z),
    lambda z: ef.losses.CategoricalCrossentropy(from_logits=True)(
        [[0.0, 0.0, 1.0, 0.0]], z),
    lambda z: ef.losses.SparseCategoricalCrossentropy(from_logits=True)([1], z),
    lambda z: ef.losses.sparse_softmax_cross_entropy([3], z),
])
def test_logits_of_plus_minus_1000_give_exact_finite_losses_and_gradients(make):
    logits = ef.Variable([[1000.0, -1000.0, 1000.0, -1000.0]])
    with ef.GradientTape() as tape:
        value = make(logits)
    grad = tape.gradient(value, logits).numpy()
    assert value.dtype == np.float32
    assert np.isfinite(float(value)) and np.isfinite(grad).all()


def test_logits_of_plus_minus_1000_exact_values():
    logits = [[1000.0, -1000.0, 1000.0, -1000.0]]
    log2 = float(np.log(2.0))
    assert float(ef.losses.CategoricalCrossentropy(from_logits=True)(
        [[0.0, 0.0, 1.0, 0.0]], logits)) == pytest.approx(log2, rel=1e-6)
    # log_softmax of -1000 next to two 1000s is -2000 - log 2.
    assert float(ef.losses.sparse_softmax_cross_entropy([1], logits)) == pytest.approx(
        2000.0 + log2, rel=1e-6)
    assert float(ef.losses.BinaryCrossentropy(from_logits=True)(
        [[1.0, 0.0, 1.0, 0.0]], logits)) == 0.0


def test_binary_logits_1000_exact_values():
    values = ef.losses.binary_crossentropy([[1.0], [0.0], [0.0]], [[1000.0], [1000.0],
                                           [-1000.0]], from_logits=True)
    np.testing.assert_array_equal(values.numpy(), [0.0, 1000.0, 0.0])


# -- gradients --------------------------------------------------------------------------------
def test_gradients_of_every_cross_entropy():
    logits = RNG.standard_normal((3, 4))
    probs = RNG.uniform(0.1, 0.9, (3, 4))
    targets = RNG.uniform(0, 1, (3, 4))
    labels = np.array([1, 0, 3])
    check = ef.testing.check_gradients
    check(lambda p: ef.losses.binary_crossentropy(targets, p), probs, order=2)
    check(lambda t, z: ef.losses.binary_crossentropy(t, z, from_logits=True), targets, logits,
          order=2)
    check(lambda t, z: ef.losses.categorical_crossentropy(t, z, from_logits=True), targets,
          logits, order=2)
    check(lambda p: ef.losses.categorical_crossentropy(targets, p), probs, order=2)
    check(lambda z: ef.losses.sparse_categorical_crossentropy(labels, z, from_logits=True),
          logits, order=2)
    check(lambda p: ef.losses.sparse_categorical_crossentropy(labels, p), probs, order=2)
    check(lambda z: ef.losses.sparse_softmax_cross_entropy(labels, z), logits, order=2)


# -- errors -----------------------------------------------------------------------------------
def test_label_out_of_range():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"label value of 4 which is outside the valid range of \[0, 4\)"):
        ef.losses.sparse_categorical_crossentropy([0, 4], LOGITS[:2], from_logits=True)
    with pytest.raises(ef.errors.InvalidArgumentError, match="label value of -1"):
        ef.losses.sparse_softmax_cross_entropy([-1, 0], LOGITS[:2])


def test_label_shape_and_dtype_errors():
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"y_true.shape=\(3,\)"):
        ef.losses.sparse_categorical_crossentropy([0, 1, 2], LOGITS[:2])
    with pytest.raises(ef.errors.InvalidArgumentError, match="non-integer values such as 0.5"):
        ef.losses.sparse_categorical_crossentropy([0.5, 1.0], LOGITS[:2])
    with pytest.raises(ef.errors.InvalidArgumentError, match="Received dtype complex"):
        ef.losses.sparse_categorical_crossentropy(np.array([1j, 0j]), LOGITS[:2])


def test_scalar_predictions_and_bad_axis_are_errors():
    with pytest.raises(ef.errors.InvalidArgumentError, match="at least rank 1"):
        ef.losses.categorical_crossentropy(1.0, 0.5)
    with pytest.raises(ef.errors.InvalidArgumentError, match="at least rank 1"):
        ef.losses.sparse_categorical_crossentropy(0, 0.5)
    with pytest.raises(ef.errors.InvalidArgumentError, match="logits must have at least rank"):
        ef.losses.sparse_softmax_cross_entropy(0, 0.5)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"Received: axis=2"):
        ef.losses.categorical_crossentropy(ONE_HOT, LOGITS, axis=2)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"only axis=-1"):
        ef.losses.sparse_categorical_crossentropy(LABELS, LOGITS, axis=0)


def test_binary_shape_mismatch_and_smoothing_range():
    with pytest.raises(ef.errors.InvalidArgumentError, match="binary_crossentropy: y_true"):
        ef.losses.binary_crossentropy(np.zeros((6, 3)), PROBS)
    with pytest.raises(ValueError, match=r"`label_smoothing` must be in \[0, 1\]"):
        ef.losses.BinaryCrossentropy(label_smoothing=1.5)
    with pytest.raises(ValueError, match="label_smoothing"):
        ef.losses.categorical_crossentropy(ONE_HOT, PROBS, label_smoothing=-0.1)


def test_weights_that_do_not_broadcast():
    with pytest.raises(ef.errors.InvalidArgumentError, match="weights of shape"):
        ef.losses.sparse_softmax_cross_entropy(LABELS, LOGITS, weights=[1.0, 2.0])


IGNORE_LABELS = np.array([[0, 1, -1], [2, -1, 0]])
IGNORE_LOGITS = np.array([[[1., 2., 0.5], [0.1, -1., 2.], [3., 0., 0.]],
                          [[0., 0., 1.], [2., 2., 2.], [-1., 1., 0.]]], "float32")
IGNORE_WEIGHTS = np.array([[1., 0.5, 2.], [3., 1., 0.]], "float32")


@pytest.mark.parametrize("reduction, plain, weighted", [  # Keras 3.15's values
    ("sum_over_batch_size", 1.9013010, 1.1773988),
    ("sum", 7.6052041, 4.7095952),
    ("mean_with_sample_weight", 1.9013010, 1.0465767),
])
def test_sparse_categorical_crossentropy_ignore_class(reduction, plain, weighted):
    loss = ef.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1,
                                                   reduction=reduction)
    assert float(loss(IGNORE_LABELS, IGNORE_LOGITS)) == pytest.approx(plain, rel=1e-5)
    assert float(loss(IGNORE_LABELS, IGNORE_LOGITS, sample_weight=IGNORE_WEIGHTS)) == \
        pytest.approx(weighted, rel=1e-5)


def test_sparse_categorical_crossentropy_ignore_class_unreduced_and_column_labels():
    loss = ef.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1,
                                                   reduction="none")
    np.testing.assert_allclose(loss(IGNORE_LABELS, IGNORE_LOGITS).numpy(),
                               [[1.4643688, 3.1817846, 0.0], [0.5514447, 0.0, 2.4076061]],
                               rtol=1e-5)
    probs = np.array([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25], [0.1, 0.1, 0.8]], "float32")
    column = ef.losses.SparseCategoricalCrossentropy(ignore_class=1)
    assert float(column(np.array([[1], [0], [2]]), probs)) == pytest.approx(0.4581454, rel=1e-5)
    assert column.get_config()["ignore_class"] == 1
    ef.testing.check_gradients(
        lambda z: ef.losses.sparse_categorical_crossentropy(
            IGNORE_LABELS, z, from_logits=True, ignore_class=-1),
        IGNORE_LOGITS.astype("float64"))


def test_ignore_class_in_fit_matches_the_loss():
    model = ef.Sequential([ef.Input((3, 3)), ef.layers.Dense(3, use_bias=False)])
    model.set_weights([np.eye(3, dtype="float32")])
    model.compile(loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True,
                                                               ignore_class=-1))
    logs = model.evaluate(IGNORE_LOGITS, IGNORE_LABELS, batch_size=2, return_dict=True,
                          verbose=0)
    assert logs["loss"] == pytest.approx(1.9013010, rel=1e-5)


@pytest.mark.parametrize("labels", [[0, 2], [[0], [2]]], ids=["(batch,)", "(batch, 1)"])
def test_integer_labels_with_categorical_crossentropy_suggest_the_sparse_loss(labels):
    # Keras 3 raises too ("Arguments `target` and `output` must have the same shape").
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"looks like integer class labels.*"
                             r"sparse_categorical_crossentropy.*ef\.one_hot\(labels, 3\)"):
        ef.losses.categorical_crossentropy(np.array(labels), np.full((2, 3), 1 / 3))


def test_other_crossentropy_shape_errors_do_not_claim_keras_broadcasts():
    with pytest.raises(ef.errors.InvalidArgumentError, match="output shape") as caught:
        ef.losses.binary_crossentropy(np.ones((2, 2)), np.full((2, 3), 0.5))
    assert "Keras" not in str(caught.value)
