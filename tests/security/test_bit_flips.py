"""Random bit flips in a checkpoint, a model file, a weights file and an `ef.saved_model`
export: every load is either refused with an eagerflow error naming the file, or loads
bit-identical to the original (values, configs and metadata). Issue 28.

`python -m tests.security.test_bit_flips N [SEED [KIND...]]` runs a sweep of N flips per
file kind in child processes (a flip that makes HDF5 hang or crash is killed and counted)
and prints the counts.
"""

import json
import os
import shutil
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.core import errors

KINDS = ("checkpoint", "model", "weights", "export")


@ef.saving.register_serializable(name="tests.security>CountedDense")
class CountedDense(ef.layers.Dense):
    """A Dense with a `save_own_variables` hook, so the files hold layer-state metadata."""

    def __init__(self, units, calls=0, **kwargs):
        super().__init__(units, **kwargs)
        self.calls = calls

    def get_config(self):
        return {**super().get_config(), "calls": self.calls}

    def save_own_variables(self, store):
        super().save_own_variables(store)
        store["calls"] = np.array(self.calls)

    def load_own_variables(self, store):
        super().load_own_variables({k: v for k, v in store.items() if k != "calls"})
        self.calls = int(store["calls"])


def _model(seed=0):
    # Named layers: the files are the same bytes whatever ran before (so are the examples).
    ef.random.set_seed(seed)
    model = ef.Sequential([ef.Input((3,)), CountedDense(4, calls=7, name="counted"),
                           ef.layers.LeakyReLU(0.3, name="leaky"),
                           ef.layers.Dropout(0.5, name="dropout"),
                           ef.layers.Dense(2, name="dense")], name="flipped")
    model.compile(optimizer="adam", loss="mse")
    model.train_on_batch(np.ones((4, 3), np.float32), np.ones((4, 2), np.float32))
    return model


class _Scale:
    def __init__(self):
        self.w = ef.Variable([2.0, 3.0], name="w")

    @ef.function(input_signature=[ef.TensorSpec([None, 2], ef.float32)])
    def __call__(self, x):
        return ef.nn.relu(x * self.w - 1.0)


_INPUT = np.array([[1.0, 0.5], [2.0, -1.0]], np.float32)


def _bytes(values):
    return [(np.asarray(v).dtype.str, np.asarray(v).shape, np.asarray(v).tobytes())
            for v in values]


def _state(model):
    """Everything a loaded model is: config, compile config, variables, layer state."""
    return (json.dumps(model.get_config(), sort_keys=True, default=str),
            json.dumps(model.get_compile_config(), sort_keys=True, default=str),
            _bytes(v.numpy() for v in model.variables),
            [getattr(layer, "calls", None) for layer in model.layers])


def write_originals(directory):
    """The four small files, and what loading each must give back."""
    os.makedirs(directory, exist_ok=True)
    model = _model()
    step = ef.Variable(np.int64(5), trainable=False)
    paths = {kind: os.path.join(directory, f"{kind}.h5") for kind in KINDS}
    ef.Checkpoint(model=model, optimizer=model.optimizer, step=step).write(paths["checkpoint"])
    model.save(paths["model"])
    model.save_weights(paths["weights"])
    ef.saved_model.save(_Scale(), paths["export"])
    return paths, {kind: load(kind, path) for kind, path in paths.items()}


def load(kind, path):
    """Loads `path` as a file of `kind`; returns a comparable picture of what loaded."""
    if kind == "checkpoint":
        model = _model(seed=1)
        step = ef.Variable(np.int64(0), trainable=False)
        status = ef.Checkpoint(model=model, optimizer=model.optimizer, step=step).read(path)
        status.assert_consumed()
        return (_bytes(v.numpy() for v in model.variables + model.optimizer.variables),
                int(step), sorted(status.matched))
    if kind == "model":
        model = ef.models.load_model(path)
        return _state(model), _bytes(v.numpy() for v in model.optimizer.variables)
    if kind == "weights":
        model = _model(seed=1)
        model.layers[0].calls = 0
        model.load_weights(path)
        return _state(model)[2:]  # (its config is the code's, with its own layer names)
    loaded = ef.saved_model.load(path)
    return (sorted(loaded.signatures), _bytes(v.numpy() for v in loaded.variables),
            [(v.name, v.trainable) for v in loaded.variables],
            _bytes([loaded(ef.constant(_INPUT)).numpy()]))


def flip(source, target, bits):
    data = bytearray(open(source, "rb").read())
    for bit in bits:
        data[(bit // 8) % len(data)] ^= 1 << (bit % 8)
    with open(target, "wb") as f:
        f.write(data)


def outcome(kind, path, expected):
    """``"identical"``, ``"refused"`` (an eagerflow error naming the file), or a string
    describing what went wrong."""
    try:
        got = load(kind, path)
    except errors.OpError as e:
        if os.path.basename(path) in str(e):
            return "refused"
        return f"unnamed {type(e).__name__}: {str(e)[:300]}"
    except Exception as e:  # noqa: BLE001 - the point is to see what escapes
        return f"foreign {type(e).__module__}.{type(e).__name__}: {str(e)[:300]}"
    return "identical" if got == expected else "different"


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    return write_originals(str(tmp_path_factory.mktemp("originals")))


@pytest.mark.parametrize("kind", KINDS)
def test_the_originals_load_identically(originals, kind, tmp_path):
    paths, expected = originals
    copy = str(tmp_path / "copy.h5")
    shutil.copyfile(paths[kind], copy)
    assert outcome(kind, copy, expected[kind]) == "identical"


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bits=st.lists(st.integers(0, 1 << 40), min_size=1, max_size=3))
def test_a_flipped_file_is_refused_by_name_or_loads_identically(originals, kind, tmp_path,
                                                                bits):
    paths, expected = originals
    target = str(tmp_path / "flipped.h5")
    flip(paths[kind], target, bits)
    assert outcome(kind, target, expected[kind]) in ("refused", "identical")


def _sweep(count, seed=0, kinds=KINDS, timeout=20.0):  # pragma: no cover - run by hand
    import collections
    import signal
    import tempfile

    directory = tempfile.mkdtemp()
    paths, expected = write_originals(directory)
    rng = np.random.default_rng(seed)
    totals = {kind: collections.Counter() for kind in kinds}
    odd = []
    for kind in kinds:
        size = os.path.getsize(paths[kind])
        for n in range(count):
            bits = [int(b) for b in rng.integers(0, size * 8, rng.integers(1, 4))]
            target = os.path.join(directory, f"flip-{kind}-{n}.h5")
            flip(paths[kind], target, bits)
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read)
                try:
                    result = outcome(kind, target, expected[kind])
                except BaseException as e:  # noqa: BLE001
                    result = f"crash {type(e).__name__}: {e}"
                os.write(write, result.encode()[:4000])
                os._exit(0)
            os.close(write)
            def give_up(*_):  # (a handler that returns would let waitpid retry forever)
                raise InterruptedError

            signal.signal(signal.SIGALRM, give_up)
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                _, status = os.waitpid(pid, 0)
                result = os.read(read, 4096).decode() or f"died (status {status})"
            except InterruptedError:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                result = f"hang (> {timeout} s)"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                os.close(read)
            label = result.split(":")[0]
            totals[kind][label] += 1
            if label not in ("refused", "identical"):
                shutil.copyfile(target, os.path.join(directory, f"odd-{kind}-{n}.h5"))
                odd.append((kind, n, bits, result))
            os.remove(target)
    for kind in kinds:
        print(kind, dict(totals[kind]))
    for item in odd:
        print(*item)
    print("odd files kept in", directory)


if __name__ == "__main__":  # pragma: no cover
    _sweep(int(sys.argv[1]) if len(sys.argv) > 1 else 100,
           int(sys.argv[2]) if len(sys.argv) > 2 else 0, tuple(sys.argv[3:]) or KINDS)
