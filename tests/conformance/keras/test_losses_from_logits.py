"""Cross-entropies of softmax and sigmoid outputs are computed from their logits (Keras 3).

Every expected value was recorded by running Keras 3.15 (TensorFlow 2.21 backend, CPU) on
the same inputs: the ported cases of ``keras/src/losses/losses_test.py``
(``BinaryCrossentropyTest``, ``CategoricalCrossentropyTest``,
``SparseCategoricalCrossentropyTest``), the same logits given as activation outputs, a
saturated ``Dense`` layer (loss and gradients, eager and inside ``tf.function``), the
metrics, and two small segmentation networks trained for two epochs. Keras reads the
logits from ``output._keras_logits`` (``keras/src/backend/tensorflow/nn.py``,
``_get_logits``); eagerflow from `eagerflow.core.logits`.
"""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors
from eagerflow.testing import check_gradients

A = np.array
RTOL = 1e-5
ONE_HOT_3 = A([[1, 0, 0], [0, 1, 0], [0, 0, 1]], "float32")
BCE_TRUE = A([[1, 0, 1], [0, 1, 1]])
BCE_LOGITS = A([[10.0, -10.0, 10.0], [10.0, 10.0, -10.0]])
CCE_PROBS = A([[0.9, 0.05, 0.05], [0.5, 0.89, 0.6], [0.05, 0.01, 0.94]], "float32")
CCE_LOGITS = A([[8.0, 1.0, 1.0], [0.0, 9.0, 1.0], [2.0, 3.0, 5.0]])

# name: (loss class, kwargs, y_true, y_pred, sample_weight, Keras's value)
PORTED = {
    "bce_unweighted": ("BinaryCrossentropy", {}, ONE_HOT_3,
                       A([[0.9, 0.1, 0.2], [0.3, 0.8, 0.1], [0.1, 0.2, 0.7]], "float32"), None,
                       0.20046918094158173),
    "bce_unweighted_01": ("BinaryCrossentropy", {}, A([1, 0, 1, 0]).reshape(2, 2),
                          A([1, 1, 1, 0], "float32").reshape(2, 2), None, 3.985596179962158),
    "bce_logits": ("BinaryCrossentropy", {"from_logits": True}, BCE_TRUE, BCE_LOGITS, None,
                   3.333378791809082),
    "bce_scalar_weighted": ("BinaryCrossentropy", {}, A([1, 0, 1, 0]).reshape(2, 2),
                            A([1, 1, 1, 0], "float32").reshape(2, 2), 2.3, 9.166871070861816),
    "bce_logits_sample_weighted": ("BinaryCrossentropy", {"from_logits": True}, BCE_TRUE,
                                   BCE_LOGITS, A([4, 3]), 10.00015926361084),
    "bce_logits_none": ("BinaryCrossentropy", {"from_logits": True, "reduction": None},
                        BCE_TRUE, BCE_LOGITS, None, [4.5398901420412585e-05, 6.666712284088135]),
    "bce_logits_smoothing": ("BinaryCrossentropy", {"from_logits": True, "label_smoothing": 0.1},
                             A([[1, 0, 1]]), A([[10.0, -10.0, -10.0]]), None, 3.5000455379486084),
    "cce_unweighted": ("CategoricalCrossentropy", {}, ONE_HOT_3, CCE_PROBS, None,
                       0.3239681124687195),
    "cce_logits": ("CategoricalCrossentropy", {"from_logits": True}, ONE_HOT_3, CCE_LOGITS, None,
                   0.05737559124827385),
    "cce_sample_weighted": ("CategoricalCrossentropy", {}, ONE_HOT_3, CCE_PROBS,
                            A([[1.2], [3.4], [5.6]]), 1.069602608680725),
    "cce_logits_none": ("CategoricalCrossentropy", {"from_logits": True, "reduction": None},
                        ONE_HOT_3, CCE_LOGITS, None,
                        [0.0018220028141513467, 0.0004587313160300255, 0.1698460429906845]),
    "cce_logits_smoothing": ("CategoricalCrossentropy",
                             {"from_logits": True, "label_smoothing": 0.1}, A([[1, 0, 0]]),
                             A([[100.0, -100.0, -100.0]]), None, 13.333333969116211),
    "scce_unweighted": ("SparseCategoricalCrossentropy", {}, A([0, 1, 2]), CCE_PROBS, None,
                        0.32396814227104187),
    "scce_logits": ("SparseCategoricalCrossentropy", {"from_logits": True}, A([0, 1, 2]),
                    CCE_LOGITS, None, 0.05737559124827385),
    "scce_logits_scalar_weighted": ("SparseCategoricalCrossentropy", {"from_logits": True},
                                    A([[0], [1], [2]]), CCE_LOGITS, 2.3, 0.13196386396884918),
    "scce_ignore_class": ("SparseCategoricalCrossentropy",
                          {"from_logits": True, "ignore_class": -1, "reduction": None},
                          A([[-1, 2]]), A([[[0.854, 0.698, 0.598], [0.088, 0.86, 0.018]]]), None,
                          [[0.0, 1.4801290035247803]]),
}


@pytest.mark.parametrize("name", sorted(PORTED))
def test_ported_keras_cases(name):
    cls, kwargs, y_true, y_pred, weight, expected = PORTED[name]
    loss = getattr(ef.losses, cls)(**kwargs)(y_true, y_pred, sample_weight=weight)
    np.testing.assert_allclose(np.asarray(loss), expected, rtol=RTOL, atol=1e-6)


# The from-logits cases again, with the logits given through an activation and from_logits
# False: Keras uses the remembered logits, so the value is the from-logits one (not the
# clipped value the probabilities alone give, listed second).
ACTIVATION = {
    "bce_logits": (3.333378791809082, 3.3333022594451904),
    "bce_logits_sample_weighted": (10.00015926361084, 9.999929428100586),
    "bce_logits_smoothing": (3.5000455379486084, 3.500037431716919),
    "cce_logits": (0.05737559124827385, 0.05737563595175743),
    "cce_logits_smoothing": (13.333333969116211, 1.0745398998260498),
    "scce_logits": (0.05737559124827385, 0.05737559124827385),
    "scce_logits_scalar_weighted": (0.13196386396884918, 0.13196386396884918),
}


@pytest.mark.parametrize("name", sorted(ACTIVATION))
def test_activation_outputs_use_their_logits(name):
    cls, kwargs, y_true, logits, weight, _ = PORTED[name]
    kwargs = {k: v for k, v in kwargs.items() if k != "from_logits"}
    activation = ef.activations.sigmoid if cls == "BinaryCrossentropy" else \
        ef.activations.softmax
    probabilities = activation(ef.constant(logits, ef.float32))
    loss = getattr(ef.losses, cls)(**kwargs)
    expected, clipped = ACTIVATION[name]
    np.testing.assert_allclose(float(loss(y_true, probabilities, sample_weight=weight)),
                               expected, rtol=RTOL)
    np.testing.assert_allclose(
        float(loss(y_true, probabilities.numpy(), sample_weight=weight)), clipped, rtol=RTOL)


# -- a saturated Dense layer ----------------------------------------------------------------
X = A([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], "float32")
LABELS = A([1, 0, 2])
ONE_HOT = np.eye(3, dtype="float32")[LABELS]
SIGMOID_TARGETS = A([[1, 0], [0, 1], [1, 1]], "float32")
SCCE_GRADS = {"loss": 21.500009536743164,
              "kernel_grad": [[0.49997246265411377, -0.3333333432674408, -0.16663913428783417],
                              [0.8333425521850586, -0.6666666865348816, -0.1666758507490158]],
              "bias_grad": [0.6666575074195862, -0.3333333432674408, -0.3333241641521454]}
KERAS_DENSE = {
    "scce": SCCE_GRADS,
    "cce": SCCE_GRADS,
    "cce_smooth": {
        "loss": 23.13334083557129,
        "kernel_grad": [[0.5499724745750427, -0.3499999940395355, -0.1999724805355072],
                        [0.7833425402641296, -0.6166666746139526, -0.1666758507490158]],
        "bias_grad": [0.6666575074195862, -0.3333333432674408, -0.3333241641521454]},
    "bce": {"loss": 23.2188777923584,
            "kernel_grad": [[0.4999999701976776, -0.39425528049468994],
                            [-0.16666670143604279, 0.4390777349472046]],
            "bias_grad": [0.16666662693023682, -0.12184347212314606]},
    "bfce": {"loss": 23.116968154907227,
             "kernel_grad": [[0.5, -0.3973442316055298],
                             [-0.1666666716337204, 0.4359978437423706]],
             "bias_grad": [0.1666666716337204, -0.1280304491519928]},
}
DENSE_LOSSES = {
    "scce": (lambda: ef.losses.SparseCategoricalCrossentropy(), "softmax", LABELS),
    "cce": (lambda: ef.losses.CategoricalCrossentropy(), "softmax", ONE_HOT),
    "cce_smooth": (lambda: ef.losses.CategoricalCrossentropy(label_smoothing=0.1), "softmax",
                   ONE_HOT),
    "bce": (lambda: ef.losses.BinaryCrossentropy(), "sigmoid", SIGMOID_TARGETS),
    "bfce": (lambda: ef.losses.BinaryFocalCrossentropy(), "sigmoid", SIGMOID_TARGETS),
}


def dense_model(activation):
    units = 3 if activation == "softmax" else 2
    model = ef.Sequential([ef.layers.Input((2,)), ef.layers.Dense(units, activation=activation)])
    if activation == "softmax":
        model.set_weights([A([[20.0, -20.0, 0.0], [10.0, 16.0, -40.0]], "float32"),
                           A([0.5, -0.5, 0.0], "float32")])
    else:
        model.set_weights([A([[20.0, -20.0], [10.0, 16.0]], "float32"), A([0.0, 1.0], "float32")])
    return model


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(DENSE_LOSSES))
def test_saturated_dense_loss_and_gradients(name, traced):
    make_loss, activation, targets = DENSE_LOSSES[name]
    model, loss_fn = dense_model(activation), make_loss()

    def step():
        with ef.GradientTape() as tape:
            loss = loss_fn(targets, model(X))
        return loss, tape.gradient(loss, model.trainable_variables)

    loss, (kernel_grad, bias_grad) = (ef.function(step) if traced else step)()
    expected = KERAS_DENSE[name]
    np.testing.assert_allclose(float(loss), expected["loss"], rtol=RTOL)
    np.testing.assert_allclose(kernel_grad.numpy(), expected["kernel_grad"], rtol=1e-4,
                               atol=1e-6)
    np.testing.assert_allclose(bias_grad.numpy(), expected["bias_grad"], rtol=1e-4, atol=1e-6)


def test_saturated_sample_has_a_gradient():
    # Sample 0 is confidently wrong (p = 2.5e-13 for its class): clipped probabilities give
    # it no gradient at all, its logits the gradient softmax - one_hot.
    model = dense_model("softmax")
    with ef.GradientTape() as tape:
        loss = ef.losses.SparseCategoricalCrossentropy()(LABELS[:1], model(X[:1]))
    kernel_grad = tape.gradient(loss, model.layers[0].kernel)
    np.testing.assert_allclose(kernel_grad.numpy(), np.outer(X[0], [1.0, -1.0, 0.0]), atol=1e-6)


def test_new_tensors_lose_the_logits():
    # Keras: a slice (or reshape, cast, identity) is a new tensor without `_keras_logits`.
    probabilities = dense_model("softmax")(X)
    loss = ef.losses.SparseCategoricalCrossentropy()
    np.testing.assert_allclose(float(loss(LABELS, probabilities[:, :])), 10.745406150817871,
                               rtol=RTOL)
    np.testing.assert_allclose(float(loss(LABELS, probabilities.numpy())), 10.745406150817871,
                               rtol=RTOL)
    assert probabilities._keras_logits is not None
    assert ef.reshape(probabilities, (9,))._keras_logits is None
    assert ef.cast(probabilities, ef.float64)._keras_logits is None


def test_from_logits_true_on_an_activation_output_warns_once(monkeypatch):
    monkeypatch.setattr(errors, "_warned", set())
    model, sigmoid_model = dense_model("softmax"), dense_model("sigmoid")
    loss = ef.losses.SparseCategoricalCrossentropy(from_logits=True)
    with pytest.warns(errors.EagerflowWarning, match=(
            r"`sparse_categorical_crossentropy` received `from_logits=True`, but the `output` "
            r"argument was produced by a Softmax activation and thus does not represent "
            r"logits. Was this intended\?")):
        value = loss(LABELS, model(X))
    np.testing.assert_allclose(float(value), 21.500009536743164, rtol=RTOL)  # Keras's value
    loss(LABELS, model(X))  # once: a second call does not warn (filterwarnings = error)
    with pytest.warns(errors.EagerflowWarning, match="produced by a Sigmoid activation"):
        value = ef.losses.BinaryCrossentropy(from_logits=True)(SIGMOID_TARGETS,
                                                                sigmoid_model(X))
    np.testing.assert_allclose(float(value), 23.2188777923584, rtol=RTOL)


# -- which outputs carry logits for which loss (Keras inside tf.function) --------------------
LOGITS = A([[30.0, -30.0, 0.0], [1.0, 2.0, -1.0]], "float32")
SPARSE = A([1, 0])
DENSE_TARGETS = np.eye(3, dtype="float32")[SPARSE]
CLIPPED_SCCE = [16.11809539794922, 1.3490121364593506]
EXACT_SCCE = [60.0, 1.3490121364593506]
KINDS = {
    # Keras: an activation function's logits serve every cross-entropy ...
    "scce_activation_softmax": (lambda x: ef.losses.sparse_categorical_crossentropy(
        SPARSE, ef.activations.softmax(x)), EXACT_SCCE),
    "cce_activation_sigmoid": (lambda x: ef.losses.categorical_crossentropy(
        DENSE_TARGETS, ef.activations.sigmoid(x)), EXACT_SCCE),
    "bce_activation_softmax": (lambda x: ef.losses.binary_crossentropy(
        DENSE_TARGETS, ef.activations.softmax(x)), [20.231048583984375, 0.9178171753883362]),
    # ... even when the softmax ran over another axis (Keras keeps only the logits)
    "cce_softmax_axis_0": (lambda x: ef.losses.categorical_crossentropy(
        DENSE_TARGETS, ef.activations.softmax(x, axis=0)), EXACT_SCCE),
    # ... and the plain ops (tf.nn.softmax, tf.sigmoid) serve the matching loss only
    "scce_nn_softmax": (lambda x: ef.losses.sparse_categorical_crossentropy(
        SPARSE, ef.nn.softmax(x)), EXACT_SCCE),
    "cce_nn_sigmoid": (lambda x: ef.losses.categorical_crossentropy(
        DENSE_TARGETS, ef.sigmoid(x)), [16.11809539794922, 0.9449573755264282]),
    "bce_nn_softmax": (lambda x: ef.losses.binary_crossentropy(
        DENSE_TARGETS, ef.nn.softmax(x)), [10.6868257522583, 0.8689489364624023]),
    "bce_nn_sigmoid": (lambda x: ef.losses.binary_crossentropy(
        DENSE_TARGETS, ef.sigmoid(x)), [20.231048583984375, 0.9178171753883362]),
    # a sparse cross-entropy with ignore_class masks the prediction first: no logits
    "scce_ignore_class": (lambda x: ef.losses.sparse_categorical_crossentropy(
        SPARSE, ef.activations.softmax(x), ignore_class=2), CLIPPED_SCCE),
    "scce_slice": (lambda x: ef.losses.sparse_categorical_crossentropy(
        SPARSE, ef.activations.softmax(x)[:, :]), CLIPPED_SCCE),
    # the binary focal loss takes its cross-entropy from the logits too
    "binary_focal_sigmoid": (lambda x: ef.losses.binary_focal_crossentropy(
        DENSE_TARGETS, ef.activations.sigmoid(x)), [20.057762145996094, 0.5651314854621887]),
    "binary_focal_from_logits": (lambda x: ef.losses.binary_focal_crossentropy(
        DENSE_TARGETS, x, from_logits=True), [20.057762145996094, 0.5651314854621887]),
    "categorical_focal_softmax": (lambda x: ef.losses.categorical_focal_crossentropy(
        DENSE_TARGETS, ef.activations.softmax(x)), [4.029522895812988, 0.18493114411830902]),
}


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(KINDS))
def test_which_outputs_carry_logits(name, traced):
    fn, expected = KINDS[name]
    fn = ef.function(fn) if traced else fn
    np.testing.assert_allclose(fn(ef.constant(LOGITS)).numpy(), expected, rtol=RTOL)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_rank_alignment_keeps_or_drops_the_logits(traced):
    # (3,) targets are expanded against (3, 1) predictions: the logits stay (16.68); (1, 3, 1)
    # predictions are squeezed to (1, 3): a new tensor, so the clipped probabilities (10.70).
    targets = np.array([0.0, 1.0, 1.0], "float32")
    logits = ef.constant([[30.0], [-20.0], [3.0]])

    def losses():
        bce = ef.losses.BinaryCrossentropy()
        return (bce(targets, ef.activations.sigmoid(logits)),
                bce(targets[None], ef.activations.sigmoid(ef.reshape(logits, (1, 3, 1)))))

    expanded, squeezed = (ef.function(losses) if traced else losses)()
    np.testing.assert_allclose(float(expanded), 16.682863235473633, rtol=RTOL)
    np.testing.assert_allclose(float(squeezed), 10.703022003173828, rtol=RTOL)


def test_gradient_through_remembered_logits():
    labels = ef.constant([1, 0])
    targets = ef.constant(DENSE_TARGETS[:2].astype("float64"))
    check_gradients(lambda x: ef.losses.sparse_categorical_crossentropy(
        labels, ef.activations.softmax(x)), A([[3.0, -2.0, 0.5], [1.0, 2.0, -1.0]]))
    check_gradients(lambda x: ef.losses.categorical_crossentropy(
        targets, ef.nn.softmax(x)), A([[3.0, -2.0, 0.5], [1.0, 2.0, -1.0]]))
    check_gradients(lambda x: ef.losses.binary_crossentropy(
        targets, ef.sigmoid(x)), A([[3.0, -2.0, 0.5], [1.0, 2.0, -1.0]]))


# -- metrics ----------------------------------------------------------------------------------
def test_metrics_use_the_logits():
    softmax_model, sigmoid_model = dense_model("softmax"), dense_model("sigmoid")
    np.testing.assert_allclose(
        float(ef.metrics.SparseCategoricalCrossentropy()(LABELS, softmax_model(X))),
        21.500009536743164, rtol=RTOL)
    np.testing.assert_allclose(
        float(ef.metrics.CategoricalCrossentropy()(ONE_HOT, softmax_model(X))),
        21.500009536743164, rtol=RTOL)
    np.testing.assert_allclose(
        float(ef.metrics.BinaryCrossentropy()(SIGMOID_TARGETS, sigmoid_model(X))),
        23.2188777923584, rtol=RTOL)


def test_evaluate_loss_and_compiled_metrics():
    model = dense_model("softmax")
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=[
        "sparse_categorical_crossentropy",
        ef.metrics.SparseCategoricalCrossentropy(name="scce_obj")])
    logs = model.evaluate(X, LABELS, verbose=0, return_dict=True)
    for key in ("loss", "sparse_categorical_crossentropy", "scce_obj"):
        np.testing.assert_allclose(float(logs[key]), 21.500009536743164, rtol=RTOL)
    model = dense_model("sigmoid")
    model.compile(optimizer="sgd", loss="binary_crossentropy", metrics=["binary_crossentropy"])
    logs = model.evaluate(X, SIGMOID_TARGETS, verbose=0, return_dict=True)
    for key in ("loss", "binary_crossentropy"):
        np.testing.assert_allclose(float(logs[key]), 23.2188777923584, rtol=RTOL)


# -- segmentation networks trained for two epochs (the U-Net case of issue 29) ---------------
def segmentation_data():
    rng = np.random.default_rng(29)
    x = rng.normal(size=(8, 6, 6, 1)).astype("float32")
    y = rng.integers(0, 3, size=(8, 6, 6))
    mask = (rng.random((8, 6, 6, 1)) > 0.5).astype("float32")
    w1 = (rng.normal(size=(3, 3, 1, 4)) * 3).astype("float32")
    w2 = (rng.normal(size=(1, 1, 4, 3)) * 6).astype("float32")
    w3 = (rng.normal(size=(1, 1, 4, 1)) * 6).astype("float32")
    return x, y, mask, w1, w2, w3


KERAS_FIT = {
    "softmax": {"loss": [45.59923553466797, 42.68289566040039],
                "accuracy": [0.3402777910232544, 0.3611111342906952],
                "evaluate": {"loss": 40.62474822998047, "accuracy": 0.3680555522441864},
                "kernel": [-8.612305641174316, -2.3658933639526367, 9.935443878173828,
                           13.190937042236328]},
    "sigmoid": {"loss": [18.185131072998047, 17.297758102416992],
                "bce": [18.185131072998047, 17.297758102416992],
                "evaluate": {"loss": 16.65320587158203, "bce": 16.65320587158203},
                "kernel": [4.259250164031982, 3.7174899578094482, -2.3191721439361572,
                           -4.417052268981934]},
}


def segmentation_model(head):
    x, y, mask, w1, w2, w3 = segmentation_data()
    inputs = ef.layers.Input((6, 6, 1))
    hidden = ef.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
    if head == "softmax":
        outputs = ef.layers.Conv2D(3, 1, activation="softmax")(hidden)
    else:
        outputs = ef.layers.Activation("sigmoid")(ef.layers.Conv2D(1, 1)(hidden))
    model = ef.Model(inputs, outputs)
    zeros = np.zeros
    model.set_weights([w1, zeros(4, "float32")] + (
        [w2, zeros(3, "float32")] if head == "softmax" else [w3, zeros(1, "float32")]))
    return model, x, (y if head == "softmax" else mask)


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["traced", "eager"])
@pytest.mark.parametrize("head", ["softmax", "sigmoid"])
def test_segmentation_fit_matches_keras(head, run_eagerly):
    model, x, y = segmentation_model(head)
    if head == "softmax":
        model.compile(ef.optim.SGD(0.05), "sparse_categorical_crossentropy",
                      metrics=["accuracy"], run_eagerly=run_eagerly)
    else:
        model.compile(ef.optim.SGD(0.05), "binary_crossentropy",
                      metrics=[ef.metrics.BinaryCrossentropy(name="bce")],
                      run_eagerly=run_eagerly)
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    expected = KERAS_FIT[head]
    for key, values in history.history.items():
        np.testing.assert_allclose(values, expected[key], rtol=1e-5, err_msg=key)
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    for key, value in expected["evaluate"].items():
        np.testing.assert_allclose(float(logs[key]), value, rtol=1e-5, err_msg=key)
    kernel = model.get_weights()[2][0, 0, :, 0]
    np.testing.assert_allclose(kernel, expected["kernel"], rtol=1e-5)


def test_segmentation_initial_loss():
    # Keras 46.32 from the logits; the clipped probabilities give 8.28 (eagerflow before).
    model, x, y = segmentation_model("softmax")
    loss = ef.losses.SparseCategoricalCrossentropy()
    np.testing.assert_allclose(float(loss(y, model(x))), 46.3177490234375, rtol=RTOL)
    np.testing.assert_allclose(float(loss(y, model(x).numpy())), 8.280941009521484, rtol=RTOL)
