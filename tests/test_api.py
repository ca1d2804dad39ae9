"""Every public name of the design contract (DESIGN.md in the project's shared folder)
exists, exactly as written there."""

import pathlib
import re

import pytest

import eagerflow as ef

# The "Top-level names" section of DESIGN.md, less "every op of the op surface" (the
# lists below), as of this version.
TOP_LEVEL = """
Tensor TensorSpec Variable constant convert_to_tensor GradientTape gradients_function
value_and_gradients_function implicit_gradients implicit_value_and_gradients custom_gradient
stop_gradient function py_function cond while_loop print device executing_eagerly num_gpus
config float16 float32 float64 int32 int64 bool cast
math nn linalg random errors debugging testing layers models optim losses metrics datasets
data callbacks initializers regularizers constraints activations train summary saved_model
utils distribute optimizers backend Module Model Sequential Checkpoint CheckpointManager
UnconnectedGradients ops autodiff
""".split()
# Names DESIGN.md already lists whose issue has not landed.
# Remove a name when it lands: test_planned_names_are_not_half_there fails as soon as one
# appears.
PLANNED: set = set()
# Names that replaced an internal package of the same name (`ef.ops`, once only the op
# families, is Keras 3's `keras.ops`, the families its submodules).
PLANNED_OVER_INTERNAL: set = set()
_DESIGN = pathlib.Path(__file__).resolve().parents[2] / "shared" / "DESIGN.md"


def _design_top_level() -> set:
    text = _DESIGN.read_text()
    section = text[text.index("## Top-level names"):].split("\n", 1)[1]
    section = section.split("`ef.executing_eagerly()`")[0]
    section = re.sub(r"\([^)]*\)", " ", section)  # parenthetical remarks name no top-level name
    filler = {"every", "op", "of", "the", "surface", "namespaces", "and"}
    return set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", section)) - filler


@pytest.mark.skipif(not _DESIGN.exists(), reason="DESIGN.md lives beside the repository")
def test_top_level_list_matches_the_design():
    assert sorted(_design_top_level()) == sorted(set(TOP_LEVEL) | PLANNED | PLANNED_OVER_INTERNAL)


def test_planned_names_are_not_half_there():
    assert not [name for name in PLANNED if hasattr(ef, name)], "update PLANNED"

MATH_OPS = """
add subtract multiply divide floordiv mod pow negative abs sign exp log log1p expm1 sqrt
rsqrt square sin cos tan tanh sigmoid softplus erf maximum minimum clip_by_value where equal
not_equal less less_equal greater greater_equal logical_and logical_or logical_not round
floor ceil reduce_sum reduce_mean reduce_max reduce_min reduce_prod reduce_logsumexp
reduce_any reduce_all reduce_std reduce_variance argmax argmin matmul tensordot einsum cumsum
top_k norm clip_by_norm clip_by_global_norm
""".split()

ARRAY_OPS = """
constant convert_to_tensor zeros ones zeros_like ones_like fill eye range linspace identity
reshape transpose expand_dims squeeze concat stack unstack split tile pad gather gather_nd
scatter_nd boolean_mask one_hot broadcast_to shape size rank sequence_mask cast
""".split()

NN_OPS = """
relu relu6 leaky_relu elu selu gelu silu softmax log_softmax sigmoid_cross_entropy_with_logits
softmax_cross_entropy_with_logits sparse_softmax_cross_entropy_with_logits conv1d conv2d
conv2d_transpose depthwise_conv2d max_pool2d avg_pool2d dropout moments batch_normalization
l2_normalize embedding_lookup bias_add
""".split()

NAMESPACED = {
    "linalg": "matmul inv det solve cholesky norm",
    "random": "set_seed normal uniform truncated_normal categorical shuffle Generator",
    "errors": "OpError InvalidArgumentError NotFoundError OutOfRangeError "
              "ResourceExhaustedError UnimplementedError InternalError",
    "debugging": "check_numerics enable_check_numerics",
    "config": "list_physical_devices",
    "testing": "check_gradients",
    "layers": "Layer Dense Activation Dropout Flatten Reshape Embedding Conv1D Conv2D "
              "Conv2DTranspose MaxPooling2D AveragePooling2D GlobalAveragePooling2D "
              "GlobalMaxPooling2D BatchNormalization LayerNormalization SimpleRNN LSTM GRU "
              "Bidirectional Lambda Add Concatenate Multiply Input",
    "models": "Model Sequential load_model",
    "distribute": "MPIStrategy DistributedOptimizer",
    "regularizers": "L1 L2 L1L2",
    "activations": "get",
    "callbacks": "Callback History EarlyStopping ModelCheckpoint LearningRateScheduler "
                 "ReduceLROnPlateau TensorBoard CSVLogger TerminateOnNaN LambdaCallback",
    "optim": "SGD GradientDescent Adam AdamW RMSprop Adagrad schedules",
    "losses": "MeanSquaredError MeanAbsoluteError Huber BinaryCrossentropy "
              "CategoricalCrossentropy SparseCategoricalCrossentropy mean_squared_error "
              "mean_absolute_error huber binary_crossentropy categorical_crossentropy "
              "sparse_categorical_crossentropy sparse_softmax_cross_entropy",
    "metrics": "Metric Mean Sum MeanSquaredError MeanAbsoluteError Accuracy BinaryAccuracy "
               "CategoricalAccuracy SparseCategoricalAccuracy TopKCategoricalAccuracy "
               "Precision Recall AUC",
    "datasets": "Dataset AUTOTUNE digits mnist fashion_mnist cifar10",
    "data": "Dataset",
    "train": "Checkpoint CheckpointManager latest_checkpoint get_or_create_global_step",
    "summary": "create_file_writer scalar histogram image text record_if "
               "record_every_n_steps",
}


@pytest.mark.parametrize("name", TOP_LEVEL + MATH_OPS + ARRAY_OPS)
def test_top_level_name(name):
    assert hasattr(ef, name), name
    assert name in ef.__all__, name


@pytest.mark.parametrize(("name", "says"), [
    ("ragged", r"no ragged tensors \(tf.ragged, tf.RaggedTensor\); pad the rows"),
    ("RaggedTensor", r"no ragged tensors"),
    ("sparse", r"no sparse tensors \(tf.sparse, tf.SparseTensor\); use dense.*scatter_nd"),
    ("SparseTensor", r"no sparse tensors"),
    ("io", r"no tf.io \(file reading"),
])
def test_tensorflow_names_left_out_on_purpose_say_so(name, says):
    with pytest.raises(AttributeError, match=rf"no attribute '{name}': eagerflow has {says}"):
        getattr(ef, name)
    assert not hasattr(ef, name) and name not in ef.__all__ and name not in dir(ef)


def test_an_unknown_name_is_a_plain_attribute_error():
    with pytest.raises(AttributeError, match=r"^module 'eagerflow' has no attribute 'nope'$"):
        ef.nope  # noqa: B018


@pytest.mark.parametrize("name", MATH_OPS)
def test_math_ops_are_also_under_ef_math(name):
    assert getattr(ef.math, name) is getattr(ef, name)


@pytest.mark.parametrize("name", NN_OPS)
def test_nn_ops(name):
    assert callable(getattr(ef.nn, name))


@pytest.mark.parametrize("namespace, name", [
    (namespace, name) for namespace, names in NAMESPACED.items() for name in names.split()
])
def test_namespaced_name(namespace, name):
    assert hasattr(getattr(ef, namespace), name), f"ef.{namespace}.{name}"


def test_class_identities():
    assert ef.Model is ef.models.Model and ef.Sequential is ef.models.Sequential
    assert ef.train.Checkpoint is ef.Checkpoint
    assert ef.data.Dataset is ef.datasets.Dataset
    assert ef.optim.GradientDescent is ef.optim.SGD
    for name in "ExponentialDecay PiecewiseConstantDecay CosineDecay".split():
        assert hasattr(ef.optim.schedules, name)


def test_dtypes_are_numpy_dtypes():
    import numpy as np

    assert ef.float32 == np.dtype("float32") and ef.bool == np.dtype("bool")


def test_model_methods():
    for name in ("compile fit evaluate predict train_on_batch test_on_batch predict_on_batch "
                 "train_step test_step summary save_weights load_weights save").split():
        assert callable(getattr(ef.Model, name)), name


def test_all_is_exact():
    missing = [name for name in ef.__all__ if not hasattr(ef, name)]
    assert not missing
    assert len(set(ef.__all__)) == len(ef.__all__)


def test_all_lists_no_internal_package():
    assert not {"core", "graph"} & set(ef.__all__)
    assert "ops" in ef.__all__ and ef.ops.sum(ef.constant([1, 2])).numpy() == 3


@pytest.mark.parametrize("module", ["math", "nn", "linalg", "train", "config", "image", "dtypes"])
def test_written_out_all_lists_exactly_the_public_imports(module):
    namespace = getattr(ef, module)
    public = {n for n in vars(namespace)
              if n.isidentifier() and not n.startswith("_")} - {"annotations"}
    assert sorted(namespace.__all__) == sorted(public)


def test_names_left_out_on_purpose_say_what_to_write_instead():
    with pytest.raises(AttributeError, match="'applications': there is no model zoo"):
        ef.applications  # noqa: B018
    with pytest.raises(AttributeError, match=r"has no attribute 'nonsense'$"):
        ef.nonsense  # noqa: B018
    assert ef.TensorShape([3]) == (3,)  # provided (shapes themselves are tuples)
