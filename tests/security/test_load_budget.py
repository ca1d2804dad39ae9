"""Issue 28 item 4: one budget for everything a load allocates (weights, values read,
build probes, buffers, decompression), refused before allocating, naming the layer and
the size, raised with ``max_bytes=`` or ``ef.config.set_load_budget``.

Hostile model files are written with eagerflow's own writer (`h5format.write`) around a
config that names huge sizes, as an attacker would; nothing here allocates more than a
few MB: every refusal happens before the allocation it refuses."""

import io
import json
import time
import zipfile

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import context
from eagerflow.saving import h5format, layer_state, load_budget
from tests.security import forge

_GiB = 1 << 30


def _model_file(tmp_path, layers, input_shape=(3,), input_dtype="float32", weights=None):
    """A model file whose architecture is a Sequential of `layers` (Keras-style config
    dicts ``{"class_name": ..., "config": ...}``) after an Input of `input_shape`."""
    config = {"class_name": "Sequential", "config": {
        "name": "hostile", "layers": [
            {"class_name": "InputLayer", "config": {
                "batch_shape": [None, *input_shape], "dtype": input_dtype, "name": "in"}},
            *layers]}}
    document = {"format": "eagerflow-model", "format_version": 1, "model": config,
                "build_config": None, "compile_config": None}
    path = str(tmp_path / "hostile.h5")
    return h5format.write(path, weights or {}, kind="model",
                          metadata={"model_config": json.dumps(document).encode("utf-8")})


def _layer(class_name, **config):
    return {"class_name": class_name, "config": config}


@pytest.mark.parametrize("layer, input_shape, input_dtype, names", [
    # RepeatVector's probe would tile a (2, 3) dummy to (2, 10**9, 3): 24 GB.
    (_layer("RepeatVector", name="rep", n=10**9), (3,), "float32",
     r"layer 'rep'.*op Tile: output of shape \(2, 1000000000, 3\)"),
    # Multi-hot of 10**10 categories: 240 GB.
    (_layer("CategoryEncoding", name="cat", num_tokens=10**10), (3,), "int32",
     r"layer 'cat'.*op OneHot: output of shape \(2, 3, 10000000000\)"),
    # A 10**9-unit kernel: 12 GB, from a file of a few KB.
    (_layer("Dense", name="wide", units=10**9), (3,), "float32",
     r"layer 'wide': weight 'kernel' of shape \(3, 1000000000\) \(float32\) needs "
     r"12000000000 bytes \(11.2 GiB\)"),
    (_layer("Embedding", name="emb", input_dim=10**10, output_dim=8), (3,), "int32",
     r"layer 'emb': weight 'embeddings' of shape \(10000000000, 8\)"),
    (_layer("ZeroPadding1D", name="pad", padding=10**10), (3, 2), "float32",
     r"layer 'pad'.*op PadV2"),
    (_layer("UpSampling1D", name="up", size=10**10), (3, 2), "float32", r"layer 'up'.*op Tile"),
    (_layer("Resizing", name="resize", height=10**5, width=10**5), (8, 8, 3), "float32",
     r"layer 'resize'.*op ResizeBilinear: output of shape \(2, 100000, 100000, 3\)"),
    (_layer("Hashing", name="hash", num_bins=10**10, output_mode="one_hot"), (1,), "int32",
     r"layer 'hash'.*one_hot output of depth 10000000000"),
    (_layer("IntegerLookup", name="ids", max_tokens=2 * 10**9, output_mode="count",
            pad_to_max_tokens=True, vocabulary=[1, 2]), (3,), "int64",
     r"layer 'ids'.*count output of depth 2000000000"),
    (_layer("TextVectorization", name="tv", output_sequence_length=10**10,
            vocabulary=["a", "b"]), (1,), "string",
     r"layer 'tv': a token grid of shape \(2, 10000000000\)"),
])
def test_a_config_naming_huge_sizes_is_refused_before_allocating(tmp_path, layer, input_shape,
                                                                 input_dtype, names):
    path = _model_file(tmp_path, [layer], input_shape=input_shape, input_dtype=input_dtype)
    with pytest.raises(ef.errors.ResourceExhaustedError, match=names) as info:
        ef.models.load_model(path)
    message = str(info.value)
    assert "hostile.h5" in message and "max_bytes=" in message and "set_load_budget" in message
    assert "twice the file's" in message  # says where the budget came from


def test_a_huge_input_shape_is_refused_before_the_probe_allocates(tmp_path):
    path = _model_file(tmp_path, [_layer("Activation", name="act", activation="relu")],
                       input_shape=(10**6, 10**5))
    with pytest.raises(ef.errors.ResourceExhaustedError,
                       match=r"layer 'act'.*a dummy input of shape \(2, 1000000, 100000\)"):
        ef.models.load_model(path)


def test_a_lookup_layer_tf_idf_buffer_is_charged(tmp_path):
    # max_tokens=2e9 with pad_to_max_tokens: a 16 GB tf-idf buffer for a 2-word vocabulary.
    layer = _layer("StringLookup", name="words", max_tokens=2 * 10**9, output_mode="tf_idf",
                   pad_to_max_tokens=True, vocabulary=["a", "b"], idf_weights=[1.0, 2.0])
    path = _model_file(tmp_path, [layer], input_shape=(1,), input_dtype="string")
    with pytest.raises(ef.errors.ResourceExhaustedError, match=r"layer 'words'"):
        ef.models.load_model(path)


def test_many_weights_each_small_share_one_budget(tmp_path):
    # The per-weight bound let 699 Dense(1000) reach 1.9 GB; here 30 of them, each 4 MB,
    # against a 20 MB budget: refused at the sixth, naming it and the running total.
    layers = [_layer("Dense", name=f"d{k}", units=1000) for k in range(30)]
    path = _model_file(tmp_path, layers, input_shape=(1000,))
    with pytest.raises(ef.errors.ResourceExhaustedError,
                       match=r"layer 'd4': weight 'kernel' .* with 15\.3 MiB already "
                             r"allocated.*budget of 19\.1 MiB \(max_bytes=20000000\)"):
        ef.models.load_model(path, max_bytes=20_000_000)


def test_the_budget_is_raised_with_max_bytes_or_the_config(tmp_path):
    layers = [_layer("Dense", name=f"d{k}", units=1000) for k in range(3)]
    path = _model_file(tmp_path, layers, input_shape=(1000,))
    with pytest.raises(ef.errors.ResourceExhaustedError, match="max_bytes=1000000"):
        ef.models.load_model(path, max_bytes=1_000_000)
    assert len(ef.models.load_model(path, max_bytes=50_000_000).layers) == 3
    ef.config.set_load_budget(1_000_000)
    try:
        with pytest.raises(ef.errors.ResourceExhaustedError,
                           match=r"ef\.config\.set_load_budget\(1000000\)"):
            ef.models.load_model(path)
        assert len(ef.models.load_model(path, max_bytes=50_000_000).layers) == 3  # wins
    finally:
        ef.config.set_load_budget(None)
    assert ef.config.get_load_budget() is None
    with pytest.raises(ValueError, match="`max_bytes` must be None or a non-negative"):
        ef.config.set_load_budget(-1)
    with pytest.raises(ValueError, match="load_model: `max_bytes` must be None"):
        ef.models.load_model(path, max_bytes="1GB")


def test_values_read_are_charged_and_nothing_is_assigned_beyond_the_budget(tmp_path):
    model = ef.Sequential([ef.Input((100,)), ef.layers.Dense(100, name="d")])
    weights = model.save_weights(str(tmp_path / "w.h5")) or str(tmp_path / "w.h5")
    before = [w.numpy().copy() for w in model.weights]
    for w in model.weights:
        w.assign(ef.ones_like(w))
    with pytest.raises(ef.errors.ResourceExhaustedError,
                       match=r"load_weights\(.*w\.h5'\): the value of 'model/.*kernel' "):
        model.load_weights(weights, max_bytes=1000)
    assert all(np.all(w.numpy() == 1) for w in model.weights)  # nothing assigned
    ckpt = ef.Checkpoint(model=model)
    with pytest.raises(ef.errors.ResourceExhaustedError, match=r"Checkpoint\.restore\("):
        ckpt.restore(weights, max_bytes=1000)
    model.load_weights(weights)
    for w, value in zip(model.weights, before, strict=True):
        np.testing.assert_array_equal(w.numpy(), value)


def test_saved_model_load_is_budgeted(tmp_path):
    scale = ef.Variable(np.ones(1000, np.float32), name="w")
    function = ef.function(lambda x: x * scale, input_signature=[ef.TensorSpec([None, 1000])])
    path = str(tmp_path / "export.h5")
    ef.saved_model.save(function, path)
    with pytest.raises(ef.errors.ResourceExhaustedError,
                       match=r"saved_model\.load\(.*export\.h5'\): the value of 'variables/0' "
                             r"\(shape \(1000,\), float32\) in the file needs 4000 bytes"):
        ef.saved_model.load(path, max_bytes=2000)
    assert ef.saved_model.load(path)(np.ones((1, 1000), np.float32)).shape == (1, 1000)


def _fail(message):
    raise ValueError(message)


def _npz(compressed=False, **arrays):
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)
    return buffer.getvalue()


def test_a_layer_state_archive_is_charged_before_it_is_read(tmp_path):
    # 16 MB of zeros: the member's size is charged to the budget before it is read.
    blob = _npz(e0=np.zeros(1 << 22, np.float32))
    path = tmp_path / "f.h5"
    path.write_bytes(b"x")
    with load_budget.scope("load_model", path, max_bytes=4 << 20), pytest.raises(
            ef.errors.ResourceExhaustedError, match=r"layer-state archive member 'e0.npy' "
                                                    r"needs 16777344 bytes"):
        layer_state._read_archive(blob, _fail)
    with load_budget.scope("load_model", path, max_bytes=20 << 20):
        assert layer_state._read_archive(blob, _fail)["e0"].shape == (1 << 22,)
    # A compressed archive (16 MB of zeros in ~16 KB) is refused before decompressing.
    bomb = _npz(compressed=True, e0=np.zeros(1 << 22, np.float32))
    assert len(bomb) < 1 << 18
    with pytest.raises(ValueError, match="declares 16777344 bytes of members"):
        layer_state._read_archive(bomb, _fail)


def _zip(**members):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _npy(array, **kwargs):
    buffer = io.BytesIO()
    np.save(buffer, array, **kwargs)
    return buffer.getvalue()


def test_a_layer_state_member_unlike_its_header_is_refused():
    member = _npy(np.arange(1000, dtype=np.int64))
    for bad in (member.replace(b"(1000,)", b"(9999,)"), member.replace(b"(1000,)", b"(1001,)"),
                member.replace(b"(1000,)", b"(999,) ")):
        with pytest.raises(ValueError, match=r"member 'e0.npy' declares dtype int64"):
            layer_state._read_archive(_zip(**{"e0.npy": bad}), _fail)
    pickled = _zip(**{"e0.npy": _npy(np.array([{"a": 1}], dtype=object), allow_pickle=True)})
    with pytest.raises(ValueError, match="declares dtype object"):
        layer_state._read_archive(pickled, _fail)
    with pytest.raises(ValueError, match="cannot be read"):
        layer_state._read_archive(b"PK junk", _fail)


def test_no_budget_outside_a_load_and_nested_loads_share_one():
    assert context.thread.load_budget is None
    ef.zeros([10, 10])  # ops charge nothing outside a load
    with load_budget.scope("outer", "/nonexistent", max_bytes=100) as outer:
        with load_budget.scope("inner", "/nonexistent", max_bytes=10**12) as inner:
            assert inner is outer
    assert context.thread.load_budget is None


def test_the_default_budget_is_twice_the_file_plus_one_gib(tmp_path):
    path = tmp_path / "f.h5"
    path.write_bytes(b"x" * 1000)
    with load_budget.scope("load_model", path) as budget:
        assert budget.limit == 2000 + _GiB


def test_legitimate_loads_stay_fast(tmp_path):
    model = ef.Sequential([ef.Input((8,)), ef.layers.Dense(16), ef.layers.Dense(4)])
    path = model.save(str(tmp_path / "m.h5"))
    ef.models.load_model(path)
    start = time.perf_counter()
    for _ in range(5):
        ef.models.load_model(path)
    assert (time.perf_counter() - start) / 5 < 0.5  # ~20 ms here; generous for slow CI


def test_an_export_graph_naming_huge_sizes_is_refused_before_allocating(tmp_path):
    # Loading an export traces its graphs again (re-deriving every shape), so the op
    # attributes in the file size real allocations: 10**10 tiles of a (4, 2) probe.
    import h5py

    function = ef.function(lambda x: ef.tile(x, [1, 3]),
                           input_signature=[ef.TensorSpec([None, 2])])
    path = str(tmp_path / "export.h5")
    ef.saved_model.save(function, path)
    with h5py.File(path, "r+") as f:
        key = ".eagerflow/functions/serving_default/0"
        text = bytes(f[key][()]).decode("utf-8")
        del f[key]
        hostile = text.replace('"multiples": {"tuple": [1, 3]}', '"multiples": {"tuple": [1, '
                               '10000000000]}').replace("[null, 6]", "[null, 20000000000]")
        assert hostile != text
        f.create_dataset(key, data=np.frombuffer(hostile.encode("utf-8"), np.uint8))
    forge.reseal(path)  # as a forger would: the checksums pass, the budget refuses
    with pytest.raises(ef.errors.ResourceExhaustedError,
                       match=r"saved_model\.load\(.*export\.h5'\): op Tile: output of shape "
                             r"\(\d+, 20000000000\)"):
        ef.saved_model.load(path)
