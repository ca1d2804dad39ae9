"""Issue 28, item 2: a lookup layer's config naming a vocabulary *path*.

The attacker saves a model with a StringLookup, IntegerLookup or TextVectorization, then
rewrites the config in the file (re-saved with eagerflow's own writer, so it is otherwise
well-formed) so that ``vocabulary`` is a path: a secret file, a symlink to it, a ``..``
path, ``/dev/zero`` or a FIFO. Loading must read none of them unless the caller passes
``safe_mode=False``, and then only regular files of bounded size.
"""

import json
import os
import re
import threading

import pytest

import eagerflow as ef
from eagerflow.layers import lookup
from eagerflow.saving import h5format, model_file

LAYERS = {
    "StringLookup": (lambda: ef.layers.StringLookup(vocabulary=["a", "b"]), "string"),
    "IntegerLookup": (lambda: ef.layers.IntegerLookup(vocabulary=[3, 4]), "int64"),
    "TextVectorization": (lambda: ef.layers.TextVectorization(vocabulary=["a", "b"]),
                          "string"),
}


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_text("11\n22\n")  # also valid IntegerLookup tokens
    return path


def _with_vocabulary(value, node):
    if isinstance(node, dict):
        if "vocabulary" in node:
            node.update(vocabulary=value, vocabulary_size=None)
        return {key: _with_vocabulary(value, item) for key, item in node.items()}
    if isinstance(node, list):
        return [_with_vocabulary(value, item) for item in node]
    return node


def _forged_model(tmp_path, name, vocabulary):
    make, dtype = LAYERS[name]
    inputs = ef.Input((1,), dtype=dtype)  # (a Sequential loses a string Input's dtype)
    path = ef.Model(inputs, make()(inputs)).save(str(tmp_path / "m.h5"))
    with h5format.Reader(path) as reader:
        document = json.loads(reader.metadata(model_file.MODEL_CONFIG))
    blob = json.dumps(_with_vocabulary(vocabulary, document)).encode()
    h5format.write(path, {}, "model", metadata={model_file.MODEL_CONFIG: blob})
    return path


def _hostile_paths(tmp_path, secret):
    link = tmp_path / "link.txt"
    link.symlink_to(secret)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    climb = os.path.relpath(secret, os.getcwd())  # '../../...' from the working directory
    return [str(secret), str(link), climb, "/dev/zero", str(fifo), "/etc/passwd"]


@pytest.mark.parametrize("name", list(LAYERS))
def test_loading_never_reads_a_vocabulary_path_named_in_the_file(tmp_path, secret, name):
    # TextVectorization's vocabulary goes to its StringLookup, named after it
    shown = (r"StringLookup 'text_vectorization(_\d+)?_lookup'" if name == "TextVectorization"
             else name)
    for vocabulary in _hostile_paths(tmp_path, secret):
        path = _forged_model(tmp_path, name, vocabulary)
        with pytest.raises(ef.errors.InvalidArgumentError,
                           match=re.escape(f"load_model({path!r}): ") + shown + ".* "
                                 + re.escape(f"reading the vocabulary file {vocabulary!r}, a "
                                             "path named in the config, is refused")
                                 + ".* pass safe_mode=False to load_model"):
            ef.models.load_model(path)
    # the refusal did not leak out of the load: user code may still name a file
    assert lookup.StringLookup(vocabulary=str(secret)).get_vocabulary() == ["[UNK]", "11",
                                                                            "22"]


def test_model_from_json_and_deserialize_are_safe_by_default(secret):
    # (a layer's config: Sequential.to_json drops a string Input's dtype, a separate bug)
    text = json.dumps(_with_vocabulary(str(secret), ef.layers.serialize(
        LAYERS["StringLookup"][0]())))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match="model_from_json: StringLookup .* pass safe_mode=False to "
                             "model_from_json"):
        ef.models.model_from_json(text)
    with pytest.raises(ef.errors.InvalidArgumentError, match="model_from_config: "):
        ef.models.model_from_config(json.loads(text))
    config = {"class_name": "StringLookup", "config": {"vocabulary": str(secret)}}
    with pytest.raises(ef.errors.InvalidArgumentError, match="deserialize: StringLookup"):
        ef.layers.deserialize(config)
    loaded = ef.models.model_from_json(text, safe_mode=False)
    assert loaded.get_vocabulary() == ["[UNK]", "11", "22"]
    # a direct from_config is user code, as in Keras
    assert ef.layers.StringLookup.from_config(config["config"]).vocabulary_size() == 3


def test_safe_mode_false_reads_only_regular_files(tmp_path, secret):
    path = _forged_model(tmp_path, "TextVectorization", str(tmp_path / "link.txt"))
    (tmp_path / "link.txt").symlink_to(secret)
    loaded = ef.models.load_model(path, safe_mode=False)
    assert loaded.layers[-1].get_vocabulary() == ["", "[UNK]", "11", "22"]
    os.mkfifo(tmp_path / "fifo")
    refusals = {"/dev/zero": "a character device", str(tmp_path / "fifo"): "a FIFO",
                str(tmp_path): "a directory"}
    for vocabulary, kind in refusals.items():
        path = _forged_model(tmp_path, "StringLookup", vocabulary)
        outcome = []

        def load(path=path):
            try:
                ef.models.load_model(path, safe_mode=False)
            except ef.errors.InvalidArgumentError as e:
                outcome.append(str(e))

        worker = threading.Thread(target=load, daemon=True)  # a FIFO must not block
        worker.start()
        worker.join(timeout=20)
        assert not worker.is_alive(), vocabulary
        assert outcome and f"is not a regular file (it is {kind})" in outcome[0]
        assert f"StringLookup: vocabulary file '{vocabulary}'" in outcome[0]


def test_vocabulary_files_in_user_code_are_bounded_and_regular(tmp_path, secret,
                                                               monkeypatch):
    monkeypatch.setattr(lookup, "MAX_VOCABULARY_FILE_BYTES", 5)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"vocabulary file '.*secret.txt' has more than the 5 bytes "
                             r"allowed \(6\)"):
        ef.layers.StringLookup(vocabulary=str(secret))
    with pytest.raises(ValueError, match="'/dev/zero' is not a regular file"):
        ef.layers.IntegerLookup(vocabulary="/dev/zero")
    with pytest.raises(ValueError, match="does not exist"):
        ef.layers.TextVectorization(vocabulary=str(tmp_path / "absent.txt"))
    with pytest.raises(ValueError, match=r"secret.txt/x' cannot be opened \(Not a directory"):
        ef.layers.StringLookup(vocabulary=str(secret / "x"))
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9\n")
    with pytest.raises(ValueError, match="'.*latin.txt' is not utf-8 text"):
        ef.layers.StringLookup(vocabulary=str(tmp_path / "latin.txt"))


def test_odd_vocabulary_paths_in_user_code_are_clear_errors(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(ValueError, match="loop' cannot be opened .*symbolic links"):
        ef.layers.StringLookup(vocabulary=str(loop))
    with pytest.raises(ValueError, match="cannot be opened .*null"):
        ef.layers.StringLookup(vocabulary="a\0b")
