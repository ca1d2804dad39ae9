"""TensorFlow/Keras names eagerflow lacks raise an AttributeError saying what to write."""

import json
import pathlib
import pickle
import types

import pytest

import eagerflow as ef
from eagerflow import absent

# Every namespace with the hook, and the TensorFlow/Keras namespaces it mirrors.
NAMESPACES = {
    ef: ("tf", "keras"), ef.nn: ("tf.nn",), ef.math: ("tf.math",), ef.linalg: ("tf.linalg",),
    ef.random: ("tf.random", "keras.random"), ef.image: ("tf.image",), ef.data: ("tf.data",),
    ef.data.experimental: ("tf.data.experimental",), ef.train: ("tf.train",),
    ef.summary: ("tf.summary",), ef.config: ("tf.config",), ef.saved_model: ("tf.saved_model",),
    ef.distribute: ("tf.distribute",), ef.dtypes: ("tf.dtypes",), ef.layers: ("keras.layers",),
    ef.losses: ("keras.losses",), ef.metrics: ("keras.metrics",),
    ef.optimizers: ("keras.optimizers",), ef.optimizers.schedules: ("keras.optimizers.schedules",),
    ef.callbacks: ("keras.callbacks",), ef.utils: ("keras.utils",), ef.ops: ("keras.ops",),
    ef.activations: ("keras.activations",), ef.initializers: ("keras.initializers",),
    ef.regularizers: ("keras.regularizers",), ef.constraints: ("keras.constraints",),
    ef.models: ("keras.models",), ef.datasets: ("keras.datasets",), ef.saving: ("keras.saving",),
}
LISTING = json.loads((pathlib.Path(absent.__file__).parent / "absent_names.json").read_text())


@pytest.mark.parametrize(("expression", "says"), [
    ("ef.ops.sum", r"eagerflow has no `keras.ops.sum`; write `ef.reduce_sum` instead\.$"),
    ("ef.ops.relu", r"no `keras.ops.relu`; write `ef.nn.relu` instead"),
    ("ef.ops.exp", r"no `keras.ops.exp`; write `ef.exp` instead"),
    ("ef.utils.get_file", r"'get_file': eagerflow downloads nothing.*urlretrieve"),
    ("ef.nn.ctc_loss", r"`tf.nn.ctc_loss` is not implemented in eagerflow"),
    ("ef.data.TFRecordDataset", r"`tf.data.TFRecordDataset` is not implemented"),
    ("ef.keras", r"Keras API is at the top level: write ef.layers.Dense"),
    ("ef.compat", r"no TensorFlow 1 API"),
    ("ef.ragged", r"no ragged tensors"),
])
def test_a_tensorflow_or_keras_name_says_what_to_write(expression, says):
    with pytest.raises(AttributeError, match=says) as caught:
        eval(expression)
    assert isinstance(caught.value, absent.AbsentNameError)
    assert caught.value.name == expression.rsplit(".", 1)[1]


@pytest.mark.parametrize("namespace", [ef, ef.layers, ef.nn, ef.utils, ef.ops, ef.saving])
def test_other_names_get_the_plain_message(namespace):
    with pytest.raises(AttributeError, match=r"has no attribute 'Dense2'$"):
        namespace.Dense2  # noqa: B018
    with pytest.raises(AttributeError, match=r"has no attribute '__wrapped__'$"):
        namespace.__wrapped__  # noqa: B018


def test_hasattr_and_getattr_default_still_work():
    assert not hasattr(ef.utils, "get_file") and not hasattr(ef.ops, "sum")
    assert getattr(ef.nn, "ctc_loss", None) is None
    assert hasattr(ef.layers, "Dense") and hasattr(ef.utils, "serialize_keras_object")


def test_a_real_name_wins_over_the_table():
    module = types.ModuleType("eagerflow.fake_ops")
    module.__getattr__ = absent.namespace_getattr(module.__name__, "keras.ops")
    module.sum = lambda x: "real"  # as ef.ops.sum will be once Keras's ops arrive
    assert module.sum(1) == "real"
    with pytest.raises(AttributeError, match="write `ef.reduce_mean` instead"):
        module.mean  # noqa: B018


def test_the_error_pickles():
    error = pickle.loads(pickle.dumps(absent.AbsentNameError("eagerflow.ops", "sum",
                                                             ("keras.ops",))))
    assert "write `ef.reduce_sum` instead" in str(error)


def test_every_tensorflow_and_keras_name_is_there_or_explained():
    plain = []
    for namespace, sources in NAMESPACES.items():
        assert namespace.__getattr__ is not None
        for source in sources:
            for name in LISTING[source]:
                try:
                    getattr(namespace, name)
                except absent.AbsentNameError as error:
                    if str(error).endswith(f"has no attribute {name!r}"):
                        plain.append(f"{source}.{name}")
    assert not plain, plain[:20]


def test_renames_point_at_names_that_exist():
    for qualified, target in absent._RENAMES.items():
        assert qualified.rsplit(".", 1)[0] in LISTING, qualified
        namespace, _, name = target.rpartition(".")
        module = ef if namespace == "ef" else eval(namespace)
        assert hasattr(module, name), f"{qualified} -> {target}"
