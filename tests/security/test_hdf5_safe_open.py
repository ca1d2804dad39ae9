"""Issue 28 item 3: HDF5 files that serve bytes from outside themselves, or far more bytes
than they hold, are refused by every reader before anything is read or allocated.

Each attack is crafted with plain h5py into an otherwise valid file of each kind (a
checkpoint, a weights file, a model file, an export), then loaded through the public
entry points."""

import ast
import os
import pathlib

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import h5safe

_PACKAGE = pathlib.Path(ef.__file__).parent


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One valid file of each kind, written by eagerflow; each test copies them."""
    directory = tmp_path_factory.mktemp("valid")
    model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2, name="dense")])
    paths = {
        "checkpoint": ef.Checkpoint(model=model).write(str(directory / "ckpt.h5")),
        "weights": model.save_weights(str(directory / "m.weights.h5")) or str(
            directory / "m.weights.h5"),
        "model": model.save(str(directory / "m.h5")) or str(directory / "m.h5"),
    }
    scale = ef.Variable([2.0, 3.0], name="w")
    function = ef.function(lambda x: x * scale, input_signature=[ef.TensorSpec([None, 2])])
    paths["export"] = str(directory / "export.h5")
    ef.saved_model.save(function, paths["export"])
    return paths


def _load(kind, path):
    if kind == "export":
        return ef.saved_model.load(path)
    if kind == "model":
        return ef.models.load_model(path)
    model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2, name="dense")])
    if kind == "weights":
        return model.load_weights(path)
    return ef.Checkpoint(model=model).restore(path)


def _error(kind):
    return ef.errors.InvalidArgumentError  # InvalidCheckpointError is one too


def _attack(files, kind, tmp_path, edit):
    path = str(tmp_path / f"{kind}.h5")
    with open(files[kind], "rb") as src, open(path, "wb") as dst:
        dst.write(src.read())
    with h5py.File(path, "r+") as f:
        edit(f, tmp_path)
    return path


def _other_file(tmp_path):
    other = str(tmp_path / "secret.h5")
    with h5py.File(other, "w") as f:
        f["secret"] = np.full((2, 3), 42.0, np.float32)
    return other


def _external_link(f, tmp_path):
    f["injected"] = h5py.ExternalLink(_other_file(tmp_path), "/secret")


def _soft_link_to_parent(f, tmp_path):
    f["loop"] = h5py.SoftLink("/..")


def _soft_link_cycle(f, tmp_path):
    f.require_group("g")["up"] = h5py.SoftLink("/g")


def _virtual_dataset(f, tmp_path):
    source = h5py.VirtualSource(_other_file(tmp_path), "secret", shape=(2, 3))
    layout = h5py.VirtualLayout(shape=(2, 3), dtype=np.float32)
    layout[:] = source
    f.create_virtual_dataset("virtual", layout)


def _external_storage(f, tmp_path):
    raw = str(tmp_path / "raw.bin")
    np.full(6, 7.0, np.float32).tofile(raw)
    f.create_dataset("ext", shape=(2, 3), dtype=np.float32, external=[(raw, 0, 24)])


def _gzip_bomb(f, tmp_path):
    # Declared 4 GiB of zeros; gzip stores them in a few MB at most (here: chunks never
    # written, so the declared size is all there is).
    f.create_dataset("bomb", shape=(1 << 30,), dtype=np.float32, chunks=(1 << 20,),
                     compression="gzip")


def _declared_huge_empty(f, tmp_path):
    f.create_dataset("huge", shape=(50000, 50000), dtype=np.float32)  # 9.3 GiB, no data


def _chunked_huge(f, tmp_path):
    dataset = f.create_dataset("chunky", shape=(1 << 40,), dtype=np.uint8, chunks=(1 << 16,),
                               maxshape=(None,))
    dataset[:4] = 1  # one chunk written, the rest declared


def _object_dataset(f, tmp_path):
    dataset = f.create_dataset("obj", shape=(2,), dtype=h5py.vlen_dtype(np.uint8))
    dataset[0] = np.frombuffer(b"abc", np.uint8)


def _reference_dataset(f, tmp_path):
    f.create_dataset("ref", data=np.array([f.ref], dtype=h5py.ref_dtype))


def _reference_attribute(f, tmp_path):
    f.attrs["format"] = f.ref  # where a string is read


_ATTACKS = {
    "external link": (_external_link, "'injected' is an external link"),
    "soft link to /..": (_soft_link_to_parent, "'loop' is a soft link"),
    "soft link cycle": (_soft_link_cycle, "'g/up' is a soft link"),
    "virtual dataset": (_virtual_dataset, "'virtual' is a virtual dataset"),
    "external storage": (_external_storage, "'ext' keeps its data outside the file"),
    "gzip bomb": (_gzip_bomb, "'bomb' is compressed or filtered"),
    "declared 9.3 GiB, no data": (_declared_huge_empty,
                                  r"'huge' claims shape \(50000, 50000\)"),
    "chunked, 1 TiB declared": (_chunked_huge, "'chunky' claims shape"),
    "vlen dataset": (_object_dataset, "'obj' has dtype"),
    "reference dataset": (_reference_dataset, "'ref' has dtype"),
    "reference attribute": (_reference_attribute, "'format' of the root group must be a "
                            "string|format <HDF5 object reference>"),
}


@pytest.mark.parametrize("kind", ["checkpoint", "weights", "model", "export"])
@pytest.mark.parametrize("attack", sorted(_ATTACKS))
def test_every_reader_refuses_the_attack_naming_the_file(files, kind, attack, tmp_path):
    edit, message = _ATTACKS[attack]
    path = _attack(files, kind, tmp_path, edit)
    with pytest.raises(_error(kind), match=message) as info:
        _load(kind, path)
    assert os.path.basename(path) in str(info.value)


@pytest.mark.parametrize("attack", ["external link", "virtual dataset", "gzip bomb"])
def test_inspection_tools_refuse_too(files, attack, tmp_path):
    path = _attack(files, "checkpoint", tmp_path, _ATTACKS[attack][0])
    for tool in (ef.saving.list_variables, ef.train.load_checkpoint,
                 lambda p: ef.saving.load_variable(p, "model/dense/kernel")):
        with pytest.raises(ef.saving.InvalidCheckpointError, match=_ATTACKS[attack][1]):
            tool(path)


def test_the_valid_files_load(files):
    for kind in files:
        _load(kind, files[kind])


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = str(tmp_path / "pipe.h5")
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="pipe.h5' is not a regular file"):
        h5safe.open_file(fifo, "Checkpoint file", ValueError)
    with pytest.raises(ef.saving.InvalidCheckpointError, match="not a regular file"):
        ef.saving.list_variables(fifo)


def _reads_hdf5(call: ast.Call) -> bool:
    """Whether `call` is ``h5py.File(...)`` opening for reading (mode absent, or not a
    literal "w"/"w-"/"x": a writer names its mode), or the low-level ``h5f.open``."""
    function = call.func
    if isinstance(function, ast.Attribute) and function.attr == "open" and (
            ast.unparse(function.value) in ("h5f", "h5py.h5f")):
        return True  # the low-level open
    if not (isinstance(function, ast.Attribute) and function.attr == "File"
            and isinstance(function.value, ast.Name) and function.value.id == "h5py"):
        return False
    modes = [k.value for k in call.keywords if k.arg == "mode"] + call.args[1:2]
    return not (modes and isinstance(modes[0], ast.Constant)
                and modes[0].value in ("w", "w-", "x"))


def test_only_the_safe_open_helper_opens_hdf5_files_for_reading():
    offending = []
    for path in sorted(_PACKAGE.rglob("*.py")):
        if path.name == "h5safe.py" and path.parent.name == "saving":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _reads_hdf5(node):
                offending.append(f"{path.relative_to(_PACKAGE.parent)}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.module == "h5py" and any(
                    alias.name == "File" for alias in node.names):
                offending.append(f"{path.relative_to(_PACKAGE.parent)}:{node.lineno} "
                                 "(from h5py import File)")
    assert not offending, ("HDF5 files opened for reading outside eagerflow/saving/h5safe.py "
                           f"(use h5safe.open_file): {offending}")
