"""Issue 28, items 1 and 5: a model or weights file whose layer-state manifest is forged.

The attacker builds a legitimate file, then rewrites its ``/.eagerflow/layer_state`` blob
(a JSON manifest plus an ``.npz`` archive) and re-saves the file with eagerflow's own
writer, so the file is otherwise perfectly well-formed (and checksummed). Loading must
write nothing anywhere, refuse the file with an error naming it, and change nothing in the
model it loads into.
"""

import io
import json
import os
import zipfile

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import h5format, layer_state


class LayerStateAttackTarget(ef.layers.Layer):
    """State in a variable, in a plain attribute (`factor`) and in an asset file (`words`)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.factor, self.words = 1.0, ["a", "b"]

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.w * self.factor

    def save_own_variables(self, store):
        super().save_own_variables(store)
        store["factor"] = np.array(self.factor)

    def load_own_variables(self, store):
        super().load_own_variables({"0": store["0"]})
        self.factor = float(store["factor"])

    def save_assets(self, directory):
        with open(os.path.join(directory, "vocab.txt"), "w") as handle:
            handle.write("\n".join(self.words))

    def load_assets(self, directory):
        with open(os.path.join(directory, "vocab.txt")) as handle:
            self.words = handle.read().split("\n")


TARGET = "model/layers/1"  # the object path of LayerStateAttackTarget in `_model`


def _model(seed):
    ef.random.set_seed(seed)
    return ef.Sequential([ef.Input((3,)), ef.layers.Dense(2), LayerStateAttackTarget()])


def _state(model):
    layer = model.layers[-1]
    return [w.numpy() for w in model.weights], layer.factor, list(layer.words)


def _assert_unchanged(model, before):
    weights, factor, words = _state(model)
    assert [w.dtype for w in weights] == [w.dtype for w in before[0]]
    assert all(np.array_equal(a, b) for a, b in zip(weights, before[0], strict=True))
    assert (factor, words) == before[1:]


def _blob(manifest, arrays, compressed=False):
    """A layer-state blob as `layer_state.collect` lays it out, with any content."""
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)
    header = (manifest if isinstance(manifest, bytes) else json.dumps(manifest).encode())
    return len(header).to_bytes(8, "little") + header + buffer.getvalue()


def _forge(path, blob):
    """Re-saves `path` with its layer state replaced by `blob`, through eagerflow's writer."""
    with h5py.File(path, "r") as raw:
        names = [n for n in raw[h5format.META] if n != h5format.MANIFEST]  # (rewritten)
    with h5format.Reader(path) as reader:
        arrays, kind = reader.read_all(list(reader.entries)), reader.kind
        metadata = {name: reader.metadata(name) for name in names}
    metadata[layer_state.LAYER_STATE] = blob
    h5format.write(path, arrays, kind, metadata=metadata)


def _asset_blob(name):
    payload = np.frombuffer(b"import os  # attacker\n", np.uint8)
    manifest = [{"path": TARGET, "kind": "assets",
                 "entries": [[name, "e0"]]}]
    return _blob(manifest, {"e0": payload})


@pytest.fixture
def outside(tmp_path):
    directory = tmp_path / "outside" / "site-packages"
    directory.mkdir(parents=True)
    return directory


def _hostile_names(outside):
    return [
        str(outside / "x.pth"),                                    # absolute
        "../" * 12 + str(outside / "y.pth").lstrip("/"),            # climbs out
        "vocab/../../../../../../../../../../.." + str(outside / "z.pth"),  # valid prefix
        "..\\..\\..\\x.pth",                                        # Windows separators
        "",                                                         # empty
        "a//b", "./a", "a/.",                                       # empty and '.' segments
        "C:/x.pth", "a\0b",                                         # drive letter, NUL
        "x" * 300,                                                  # segment too long
    ]


@pytest.mark.parametrize("kind", ["model", "weights"])
def test_asset_names_cannot_write_outside_and_the_load_is_refused(tmp_path, outside, kind):
    model = _model(0)
    path = str(tmp_path / "m.h5")
    model.save(path) if kind == "model" else model.save_weights(path)
    target = _model(1)
    before = _state(target)
    for name in _hostile_names(outside):
        _forge(path, _asset_blob(name))
        with pytest.raises(ef.saving.InvalidCheckpointError,
                           match="could write outside its directory") as raised:
            if kind == "model":
                ef.models.load_model(path)
            else:
                target.load_weights(path)
        assert path in str(raised.value)
        assert list(outside.iterdir()) == [], name
        assert sorted(os.listdir(tmp_path)) == ["m.h5", "outside"]
        _assert_unchanged(target, before)


def test_each_hostile_asset_name_is_refused_with_its_reason(outside):
    reasons = {
        0: "absolute path", 1: "'..' segment", 2: "'..' segment", 3: "backslash",
        4: "not a non-empty string", 5: "empty", 6: "'.'", 7: "'.'", 8: "absolute path",
        9: "NUL", 10: "longer than 255 bytes"}
    model = _model(0)
    for index, name in enumerate(_hostile_names(outside)):
        with pytest.raises(ef.saving.InvalidCheckpointError,
                           match=r"'f\.h5': the layer state .* could write outside its "
                                 r"directory: .*" + reasons[index]):
            layer_state.read(model, _asset_blob(name), "f.h5")


def test_duplicate_and_clashing_asset_names_are_refused():
    model = _model(0)
    data = {"e0": np.zeros(2, np.uint8), "e1": np.ones(2, np.uint8)}

    def manifest(entries):
        return [{"path": TARGET, "kind": "assets",
                 "entries": entries}]

    with pytest.raises(ef.saving.InvalidCheckpointError, match="holds 'a' twice"):
        layer_state.read(model, _blob(manifest([["a", "e0"], ["a", "e1"]]), data), "f.h5")
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match="names 'a' .* both as an asset file and as a directory"):
        layer_state.read(model, _blob(manifest([["a", "e0"], ["a/b", "e1"]]), data), "f.h5")
    record = manifest([["vocab.txt", "e0"]])[0]
    with pytest.raises(ef.saving.InvalidCheckpointError, match="assets of the object at .* "
                       "twice"):
        layer_state.read(model, _blob([record, record], data), "f.h5")


def test_assets_are_written_only_into_a_fresh_directory_never_through_a_link(tmp_path):
    # The second guard behind the name check: an existing file or link is never followed.
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    directory = tmp_path / "assets"
    directory.mkdir()
    (directory / "vocab.txt").symlink_to(victim)
    with pytest.raises(FileExistsError):
        layer_state._write_assets(str(directory), {"vocab.txt": b"evil"})
    assert victim.read_bytes() == b"keep"
    with pytest.raises(ef.errors.InvalidArgumentError, match="resolves outside"):
        layer_state._write_assets(str(directory), {"../victim": b"evil"})


def test_saved_assets_with_unloadable_names_are_refused_at_save(tmp_path):
    class BackslashAssets(LayerStateAttackTarget):
        def save_assets(self, directory):
            with open(os.path.join(directory, "a\\b.txt"), "w") as handle:
                handle.write("x")

    model = ef.Sequential([ef.Input((3,)), BackslashAssets()])
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"wrote a file named 'a\\\\b.txt' that could not be loaded"):
        model.save_weights(tmp_path / "m.h5")


def test_assets_round_trip_through_load_weights_and_load_model(tmp_path):
    model = _model(0)
    model.layers[-1].words, model.layers[-1].factor = ["x", "y", "z"], 2.5
    path = model.save(str(tmp_path / "m.h5"))
    loaded = ef.models.load_model(path)
    assert (loaded.layers[-1].words, loaded.layers[-1].factor) == (["x", "y", "z"], 2.5)
    target = _model(1)
    target.load_weights(path)
    assert (target.layers[-1].words, target.layers[-1].factor) == (["x", "y", "z"], 2.5)


def _legit_blob(model):
    return layer_state.collect(model)[layer_state.LAYER_STATE]


def _flip_in_archive(blob):
    size = int.from_bytes(blob[:8], "little")
    magic = blob.index(b"\x93NUMPY", 8 + size)  # the first member's .npy header
    data = magic + 10 + int.from_bytes(blob[magic + 8:magic + 10], "little")
    flipped = bytearray(blob)
    flipped[data] ^= 0x10  # one bit of the first stored value: its CRC no longer matches
    return bytes(flipped)


def _failures(model):
    legit = _legit_blob(model)
    size = int.from_bytes(legit[:8], "little")
    manifest = json.loads(legit[8:8 + size])
    elsewhere = [dict(record, path="model/nothing") for record in manifest]
    missing = [dict(record, entries=[[key, "e99"] for key, _ in record["entries"]])
               for record in manifest]
    archive = legit[8 + size:]

    def with_manifest(text):
        return len(text).to_bytes(8, "little") + text + archive

    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w") as zipped:
        npy = io.BytesIO()
        np.lib.format.write_array_header_1_0(
            npy, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
        zipped.writestr("e0.npy", npy.getvalue() + b"\0" * 8)
    pickled = io.BytesIO()
    with zipfile.ZipFile(pickled, "w") as zipped:
        npy = io.BytesIO()
        np.save(npy, np.array([None, 1], dtype=object), allow_pickle=True)
        zipped.writestr("e0.npy", npy.getvalue())
    one = json.dumps([{"path": TARGET, "kind": "variables",
                       "entries": [["0", "e0"]]}]).encode()
    return {
        "a manifest path naming nothing": (with_manifest(json.dumps(elsewhere).encode()),
                                           "no object there"),
        "an entry naming no archive member": (with_manifest(json.dumps(missing).encode()),
                                              "which its archive does not hold"),
        "a flipped bit in the archive": (_flip_in_archive(legit), "BadZipFile"),
        "a deeply nested manifest": (with_manifest(b"[" * 100_000 + b"]" * 100_000),
                                     "nested 100000 levels deep"),
        "a manifest that is not a list": (with_manifest(b'{"a": 1}'), "not a list"),
        "a truncated blob": (legit[:8 + size // 2], "truncated"),
        "a compressed archive": (_blob(manifest, {f"e{i}": np.zeros(3) for i in range(3)},
                                       compressed=True), "compressed"),
        "an array header larger than its data": (with_manifest(one)[:8 + len(one)]
                                                 + bomb.getvalue(), r"shape \(1000000000000"),
        "a pickled object array": (len(one).to_bytes(8, "little") + one + pickled.getvalue(),
                                   "dtype object"),
    }


@pytest.mark.parametrize("kind", ["model", "weights"])
def test_a_refused_layer_state_changes_nothing(tmp_path, kind):
    model = _model(0)
    model.layers[-1].factor, model.layers[-1].words = 3.0, ["p", "q"]
    path = str(tmp_path / "m.h5")
    model.save(path) if kind == "model" else model.save_weights(path)
    target = _model(1)
    before = _state(target)
    for what, (blob, reason) in _failures(model).items():
        _forge(path, blob)
        with pytest.raises(ef.saving.InvalidCheckpointError, match=reason) as raised:
            if kind == "model":
                ef.models.load_model(path)
            else:
                target.load_weights(path)
        assert path in str(raised.value), what
        _assert_unchanged(target, before)


def test_a_huge_manifest_is_refused_quickly():
    records = [{"path": f"model/x{i}", "kind": "variables", "entries": []}
               for i in range(20_000)]
    with pytest.raises(ef.saving.InvalidCheckpointError, match="no object there"):
        layer_state.read(_model(0), _blob(records, {}), "f.h5")


def test_a_failing_load_hook_gives_every_variable_its_previous_value_back(tmp_path):
    class Failing(LayerStateAttackTarget):
        def load_own_variables(self, store):
            super().load_own_variables(store)  # assigns, then fails
            raise ValueError("hook failed")

    path = _model(0).save_weights(str(tmp_path / "m.h5"))
    ef.random.set_seed(1)
    target = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2), Failing()])
    before = _state(target)
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"load_own_variables of the object at 'model/layers/1' raised "
                             "ValueError: hook failed. Nothing was restored") as raised:
        target.load_weights(path)
    assert path in str(raised.value) and isinstance(raised.value.__cause__, ValueError)
    weights, factor, words = _state(target)
    assert all(np.array_equal(a, b) for a, b in zip(weights, before[0], strict=True))
    assert factor == 1.0  # the hook raised before setting it


def _overlapping_archive(copies):
    """A stored zip whose central directory lists one 100 kB member `copies` times, under
    names e00.npy, e01.npy...: each entry points at the same bytes (a non-recursive zip bomb,
    ~`copies` times its size once extracted)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        npy = io.BytesIO()
        np.save(npy, np.zeros(100_000, np.uint8))
        zipped.writestr("e00.npy", npy.getvalue())
    data = buffer.getvalue()
    end = data.rindex(b"PK\x05\x06")
    start = int.from_bytes(data[end + 16:end + 20], "little")
    entry = data[start:end]
    entries = [entry.replace(b"e00.npy", f"e{i:02}.npy".encode()) for i in range(copies)]
    directory = b"".join(entries)
    tail = bytearray(data[end:])
    tail[8:10] = tail[10:12] = copies.to_bytes(2, "little")
    tail[12:16] = len(directory).to_bytes(4, "little")
    return data[:start] + directory + bytes(tail)


def test_overlapping_or_reused_archive_members_are_refused():
    model = _model(0)
    manifest = json.dumps([{"path": TARGET, "kind": "assets", "entries": [
        [f"f{i}", f"e{i:02}"] for i in range(50)]}]).encode()
    bomb = len(manifest).to_bytes(8, "little") + manifest + _overlapping_archive(50)
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"archive declares 50\d{5} bytes of members in 10\d{4} bytes"):
        layer_state.read(model, bomb, "f.h5")
    reused = [{"path": TARGET, "kind": "assets",
               "entries": [[f"f{i}", "e0"] for i in range(50)]}]
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match="names the archive member 'e0' more than once"):
        layer_state.read(model, _blob(reused, {"e0": np.zeros(10**5, np.uint8)}), "f.h5")
