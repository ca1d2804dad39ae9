"""`StringLookup` and `IntegerLookup`: tokens to vocabulary indices (and back).

Both layers share one lookup model, Keras 3's ``IndexLookup``. The indices are laid out
as ``[mask] [OOV buckets] [tokens...]``: the mask token (if any, and only in ``"int"``
mode) takes index 0, then `num_oov_indices` buckets for out-of-vocabulary (OOV) tokens,
then the vocabulary. A vocabulary is given (a list, an array or a text file with one token
per line) or learned with `adapt`, which counts tokens and keeps the most frequent ones,
ties broken by the token itself, larger first (Keras's order).

A vocabulary file must be a regular file (a symlink to one is fine; a FIFO, a device or a
directory is refused) of at most `MAX_VOCABULARY_FILE_BYTES` (raise it for a larger one).
Loading a model never reads one: a path in a loaded config is refused unless the caller
passes ``safe_mode=False`` (to `load_model`, `model_from_json`, `model_from_config`), as
in Keras. A layer's own config always holds the tokens, never the path.

Lookups run on NumPy values: text is not differentiable. Eagerly (and inside
``Dataset.map``) the layer computes directly; inside an `ef.function` trace (a model's
traced `fit` step) it runs as an ``ef.py_function`` node, so the graph calls it on the
values of every batch.

With several OOV buckets, an unknown string goes to bucket ``Fingerprint64(s) %
num_oov_indices`` (FarmHash, exactly as TensorFlow's ``to_hash_bucket_fast``; with a
`salt`, SipHash-2-4 keyed by it, as ``to_hash_bucket_strong``), an unknown integer to
``value % num_oov_indices`` (``oov_method="floormod"``) or to the string hash of its
decimal form (``oov_method="farmhash"``).

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.StringLookup(vocabulary=["a", "b", "c"])
    >>> layer([["a", "c"], ["z", "b"]]).numpy()
    array([[1, 3],
           [0, 2]])
"""

from __future__ import annotations

import collections
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.core import context, dtypes, errors, tensor
from eagerflow.core.dispatch import convert_input
from eagerflow.graph import python_ops
from eagerflow.layers import call_context
from eagerflow.layers.base import Layer
from eagerflow.saving import fileio, load_budget, registry
from eagerflow.utils import farmhash, siphash

_OUTPUT_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
# The largest vocabulary file read (64 MiB: ~8 million tokens; BERT's is 0.2 MiB).
MAX_VOCABULARY_FILE_BYTES = 64 << 20


def output_mode_arg(output_mode: Any, owner: str) -> str:
    """`output_mode` with Keras's aliases (``"binary"``, ``"tf-idf"``) resolved; a
    ValueError naming `owner` for an unknown mode (the lookup layers and
    TextVectorization)."""
    output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
    if output_mode not in _OUTPUT_MODES:
        raise ValueError(f"{owner}: `output_mode` must be one of {_OUTPUT_MODES}. "
                         f"Received: output_mode={output_mode!r}")
    return output_mode
_DROPPED = -1  # the index of a mask token in the counting modes: not counted


def as_numpy(value) -> np.ndarray:
    """`value` (a tensor, an array, a list, a scalar) as a NumPy array."""
    if isinstance(value, tensor.Tensor) or hasattr(value, "_read"):
        return np.asarray(convert_input(value))  # .numpy() of a scalar string is bytes
    return np.asarray(value)


def to_text(array: np.ndarray, encoding: str, what: str) -> np.ndarray:
    """An array of str from str, bytes or object (str/bytes) arrays; raises for others."""
    kind = array.dtype.kind
    if kind == "U":
        return array
    if kind == "S":
        return np.char.decode(array, encoding)
    if kind == "O" and all(isinstance(v, (str, bytes)) for v in array.flat):
        values = [v.decode(encoding) if isinstance(v, bytes) else v for v in array.flat]
        return np.array(values, dtype=str).reshape(array.shape) if values else \
            np.zeros(array.shape, str)
    raise ValueError(f"{what} expects string inputs. Received: inputs of dtype {array.dtype} "
                     f"(values {array.reshape(-1)[:4].tolist()}...)")


def batches_of(data, steps, what: str):
    """The batches `adapt` reads from `data`, as Keras does: a Dataset or a generator (any
    iterable that is not a list, tuple, array or tensor) yields batches, at most `steps`
    of them; anything else is one batch whose rank-1 form is a column of samples."""
    if isinstance(data, (list, tuple, np.ndarray, tensor.Tensor)) or hasattr(data, "_read"):
        array = as_numpy(data)
        yield array[:, None] if array.ndim == 1 else array
        return
    if not hasattr(data, "__iter__"):
        raise TypeError(
            f"{what}.adapt() takes an array, a list, a tensor, an ef.data Dataset or an "
            f"iterable of batches. Received: data of type {type(data).__name__}")
    for index, batch in enumerate(data):
        if steps is not None and index >= steps:
            return
        if isinstance(batch, tuple):  # (x, y) elements: the features
            batch = batch[0]
        yield as_numpy(batch)


def salt_pair(salt, what: str):
    """Keras's `salt`: None, an int (used for both key halves) or two ints."""
    if salt is None:
        return None
    if isinstance(salt, (int, np.integer)) and not isinstance(salt, bool):
        return [int(salt), int(salt)]
    if isinstance(salt, (tuple, list)) and len(salt) == 2 and all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in salt):
        return [int(s) for s in salt]
    raise ValueError(f"{what}: `salt` must be an int or a tuple of 2 ints. Received: "
                     f"salt={salt!r}")


def string_buckets(values, num_buckets: int, salt, encoding: str = "utf-8") -> np.ndarray:
    """The hash bucket of each string, as TensorFlow computes it: FarmHash's
    Fingerprint64 without a salt, SipHash-2-4 keyed by the salt with one."""
    if salt is None:
        return farmhash.hash_bucket(values, num_buckets, encoding)
    return siphash.hash_bucket(values, num_buckets, salt, encoding)


def encode(ids: np.ndarray, output_mode: str, depth: int, idf=None) -> np.ndarray:
    """One-hot, multi-hot, count or TF-IDF vectors of `depth` from `ids` (float32);
    negative ids (masks, padding) count nowhere. Multi-hot, count and TF-IDF reduce the
    last axis (a rank-1 input is one sample); one-hot adds an axis, except that a last
    axis of size 1 is replaced."""
    if ids.ndim == 0:
        ids = ids[None]
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: `depth` comes from it
        budget.charge((ids.size, depth), np.float32, f"{output_mode} output of "
                      f"depth {depth} for {ids.size} ids", transient=True)
    if output_mode == "one_hot":
        if ids.ndim > 1 and ids.shape[-1] == 1:
            ids = ids[..., 0]
        out = np.zeros((ids.size, depth), np.float32)
        flat = ids.reshape(-1)
        rows = np.nonzero(flat >= 0)[0]
        out[rows, flat[rows]] = 1.0
        return out.reshape((*ids.shape, depth))
    rows2d = ids.reshape(int(np.prod(ids.shape[:-1])), ids.shape[-1])
    out = np.zeros((rows2d.shape[0], depth), np.float32)
    row_index = np.broadcast_to(np.arange(rows2d.shape[0])[:, None], rows2d.shape)
    valid = rows2d >= 0
    if output_mode == "multi_hot":
        out[row_index[valid], rows2d[valid]] = 1.0
    else:
        np.add.at(out, (row_index[valid], rows2d[valid]), 1.0)
        if output_mode == "tf_idf":
            out *= idf
    return out.reshape((*ids.shape[:-1], depth))


def encoded_shape(input_shape, output_mode: str, depth):
    """The output shape of `encode` for `input_shape` (Keras's `compute_output_shape`)."""
    input_shape = tuple(input_shape)
    if output_mode == "int":
        return input_shape
    if output_mode == "one_hot":
        if len(input_shape) > 1 and input_shape[-1] == 1:
            return (*input_shape[:-1], depth)
        return (*input_shape, depth)
    return (*input_shape[:-1], depth)


class IndexLookup(Layer):
    """The shared base of `StringLookup` and `IntegerLookup` (see the module docstring);
    subclasses say how inputs become tokens (`_tokens_of`) and how a file line reads."""

    _tokens_of: Callable[[Any], Any]  # each subclass's rule
    _token_from_line: Callable[[str], Any]

    def __init__(self, max_tokens: Any, num_oov_indices: Any, mask_token: Any, oov_token: Any,
                 vocabulary_dtype: Any, vocabulary: Any = None, idf_weights: Any = None,
                 invert: bool = False, output_mode: str = "int", sparse: bool = False,
                 pad_to_max_tokens: bool = False, oov_method: str = "floormod", salt: Any = None,
                 vocabulary_size: Any = None, has_input_vocabulary: Any = None,
                 **kwargs: Any) -> None:
        kwargs.setdefault("autocast", False)  # integer ids given as floats stay exact
        super().__init__(**kwargs)
        what = type(self).__name__
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(
                max_tokens, (int, np.integer)) or max_tokens <= 1):
            raise ValueError(f"{what}: if set, `max_tokens` must be an int greater than 1. "
                             f"Received: max_tokens={max_tokens!r}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"{what}: pad_to_max_tokens=True needs `max_tokens`. Received: "
                             "max_tokens=None")
        if isinstance(num_oov_indices, bool) or not isinstance(
                num_oov_indices, (int, np.integer)) or num_oov_indices < 0:
            raise ValueError(f"{what}: `num_oov_indices` must be an int >= 0. Received: "
                             f"num_oov_indices={num_oov_indices!r}")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"{what}: `oov_method` must be 'floormod' or 'farmhash'. "
                             f"Received: oov_method={oov_method!r}")
        salt = salt_pair(salt, what)
        if salt is not None and vocabulary_dtype != "string" and oov_method != "farmhash":
            raise ValueError(f"{what}: `salt` can only be used when oov_method='farmhash'. "
                             f"Received: oov_method={oov_method!r}")
        output_mode = output_mode_arg(output_mode, what)
        if invert and output_mode != "int":
            raise ValueError(f"{what}: `output_mode` must be 'int' when `invert` is true. "
                             f"Received: output_mode={output_mode!r}")
        if sparse:
            raise ValueError(f"{what}: sparse=True is not supported (eagerflow has no sparse "
                             "tensors); leave sparse=False for dense outputs.")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"{what}: `idf_weights` should only be set if `output_mode` is "
                             f"'tf_idf'. Received: output_mode={output_mode!r}")
        if output_mode == "tf_idf" and vocabulary is not None and idf_weights is None:
            raise ValueError(f"{what}: with a `vocabulary` in output_mode='tf_idf', the "
                             "`idf_weights` argument must also be provided.")
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.num_oov_indices = int(num_oov_indices)
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.vocabulary_dtype = vocabulary_dtype
        self.invert = bool(invert)
        self.output_mode = output_mode
        self.sparse = False
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        self.oov_method = oov_method
        self.salt = salt
        self._has_input_vocabulary = (vocabulary is not None if has_input_vocabulary is None
                                      else bool(has_input_vocabulary))
        self._tokens: list = []
        self._index: dict = {}
        self._idf: Any = None
        self._frozen_vocab_size = vocabulary_size
        self.reset_state()
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # -- the index layout -----------------------------------------------------------------
    def _oov_start_index(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self) -> int:
        return self._oov_start_index() + self.num_oov_indices

    def vocabulary_size(self) -> int:
        """The number of indices: mask and OOV indices included.

        Examples:
            >>> import eagerflow as ef
            >>> ef.layers.StringLookup(vocabulary=["a", "b"], mask_token="").vocabulary_size()
            4
        """
        return self._token_start_index() + len(self._tokens)

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The vocabulary in index order (position ``i`` holds the token of index ``i``).

        Args:
            include_special_tokens: include the mask and OOV tokens (then a token's
                position equals its index), or only the learned or given tokens.

        Examples:
            >>> import eagerflow as ef
            >>> layer = ef.layers.IntegerLookup(vocabulary=[7, 3], mask_token=0)
            >>> layer.get_vocabulary(), layer.get_vocabulary(include_special_tokens=False)
            ([0, -1, 7, 3], [7, 3])
        """
        tokens = list(self._tokens)
        if not include_special_tokens:
            return tokens
        return [self.mask_token] * self._oov_start_index() + (
            [self.oov_token] * self.num_oov_indices) + tokens

    # -- vocabulary -------------------------------------------------------------------------
    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Replaces the vocabulary (and, in ``"tf_idf"`` mode, the IDF weights).

        Args:
            vocabulary: a list, tuple, 1-D array or tensor of tokens, or the path of a text
                file with one token per line. It may start with the special tokens in
                index order (as `get_vocabulary` returns them); they are then not repeated.
            idf_weights: one inverse-document-frequency weight per vocabulary entry;
                required in ``"tf_idf"`` mode and refused otherwise. Without special
                tokens in the vocabulary, the OOV indices get the mean weight.

        Raises:
            ValueError: for an empty vocabulary, repeated tokens, special tokens elsewhere
                than at the start, a vocabulary larger than `max_tokens`, missing or
                mismatched `idf_weights`, a file that does not exist, is not a regular file
                or is larger than `MAX_VOCABULARY_FILE_BYTES`, or a file path while a
                model is loaded in safe mode.

        Examples:
            >>> import eagerflow as ef
            >>> layer = ef.layers.StringLookup()
            >>> layer.set_vocabulary(["x", "y"])
            >>> layer(["y", "x", "w"]).numpy()
            array([2, 1, 0])
        """
        what = type(self).__name__
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError(f"{what}: `idf_weights` must be set if output_mode is "
                                 "'tf_idf'.")
        elif idf_weights is not None:
            raise ValueError(f"{what}: `idf_weights` should only be set if output_mode is "
                             f"'tf_idf'. Received: output_mode={self.output_mode!r}")
        if isinstance(vocabulary, (str, os.PathLike)):
            path = os.fspath(vocabulary)
            registry.check_safe_mode(f"{what} {self.name!r} reading the vocabulary file "
                                     f"{path!r}")
            data = fileio.read_regular_file(path, MAX_VOCABULARY_FILE_BYTES,
                                            f"{what}: vocabulary file")
            encoding = getattr(self, "encoding", "utf-8")
            try:
                lines = data.decode(encoding).splitlines()
            except UnicodeDecodeError as e:
                raise ValueError(f"{what}: vocabulary file {path!r} is not {encoding} text "
                                 f"({e}).") from None
            while lines and lines[-1] == "":
                lines.pop()
            vocabulary = [self._token_from_line(line) for line in lines]
        values = self._as_tokens(as_numpy(vocabulary).reshape(-1)
                                 if not isinstance(vocabulary, list) else vocabulary)
        if not values:
            raise ValueError(f"{what}: cannot set an empty vocabulary. Received: "
                             f"vocabulary={vocabulary!r}")
        start = self._token_start_index()
        special = self.get_vocabulary()[:start]
        found_special = values[:start] == special
        tokens = values[start:] if found_special else values
        repeated = [t for t, n in collections.Counter(tokens).items() if n > 1]
        if repeated:
            raise ValueError(f"{what}: the vocabulary has repeated terms {repeated[:10]}; "
                             "each term must appear once.")
        reserved = [(name, value) for name, value in (("mask_token", self.mask_token),
                                                      ("oov_token", self.oov_token))
                    if value is not None and value in tokens
                    and (name == "mask_token" or self.invert)]
        if reserved:
            name, value = reserved[0]
            raise ValueError(
                f"{what}: found the reserved {name}={value!r} at vocabulary index "
                f"{values.index(value)}. The vocabulary does not need the mask and OOV "
                f"tokens; include them only at its start, in this order: {special}.")
        size = start + len(tokens)
        if self.max_tokens is not None and size > self.max_tokens:
            raise ValueError(f"{what}: the vocabulary has {size} entries (special tokens "
                             f"included), more than max_tokens={self.max_tokens}.")
        idf = None
        if self.output_mode == "tf_idf":
            weights = as_numpy(idf_weights).astype(np.float64)
            if weights.ndim != 1 or len(weights) != len(values):
                raise ValueError(
                    f"{what}: `idf_weights` must be 1-D with one weight per vocabulary entry "
                    f"({len(values)}). Received: idf_weights of shape {weights.shape}")
            if not found_special:
                weights = np.concatenate([np.full(start, weights.mean()), weights])
            idf = weights
        self._install(tokens, idf)

    def _install(self, tokens: list, idf) -> None:
        what = type(self).__name__
        size = self._token_start_index() + len(tokens)
        if (self._frozen_vocab_size is not None and self._called
                and self.output_mode != "int" and not self.pad_to_max_tokens
                and size != self._frozen_vocab_size):
            raise RuntimeError(
                f"{what}: with output_mode={self.output_mode!r} and pad_to_max_tokens=False, "
                "the vocabulary size cannot change after the layer is called. Old size: "
                f"{self._frozen_vocab_size}, new size: {size}")
        start = self._token_start_index()
        self._tokens = list(tokens)
        self._index = {token: start + i for i, token in enumerate(self._tokens)}
        self._frozen_vocab_size = size
        if idf is not None:
            depth = self._depth()
            load_budget.charge((depth,), np.float64, f"layer {self.name!r}: the tf-idf "
                               f"weights of {depth} tokens (max_tokens)")
            padded = np.zeros(depth, np.float64)
            padded[:len(idf)] = idf
            self._idf = padded.astype(np.float32)

    def _depth(self) -> int:
        if self.pad_to_max_tokens and self.max_tokens is not None:  # (always set then)
            return self.max_tokens
        return self.vocabulary_size()

    # -- adapt ----------------------------------------------------------------------------
    def reset_state(self) -> None:
        """Forgets the token counts gathered by `update_state` (not the vocabulary)."""
        self._token_counts: collections.Counter = collections.Counter()
        self._document_counts: collections.Counter = collections.Counter()
        self._num_documents = 0

    def adapt(self, data: Any, steps: Any = None) -> None:
        """Learns the vocabulary (and the IDF weights in ``"tf_idf"`` mode) from `data`.

        Tokens are sorted by how often they occur, ties by the token, larger first; with
        `max_tokens` only the most frequent fit. Each sample (row) is a document for the
        document frequencies.

        Args:
            data: an array, list or tensor (a rank-1 one is a column: one token per
                sample), an `ef.data` Dataset of batches, or any iterable of batches
                (a rank-1 batch is a single document; ``(x, y)`` elements give `x`).
            steps: for datasets and iterables, how many batches to read (default: all).

        Raises:
            ValueError: if the layer was given its vocabulary at construction, or the
                data holds values of the wrong kind.

        Examples:
            >>> import eagerflow as ef
            >>> layer = ef.layers.StringLookup()
            >>> layer.adapt(["b", "a", "b", "c", "c"])
            >>> layer.get_vocabulary()
            ['[UNK]', 'c', 'b', 'a']
        """
        self.reset_state()
        for batch in batches_of(data, steps, type(self).__name__):
            self.update_state(batch)
        self.finalize_state()

    def update_state(self, data: Any) -> None:
        """Adds the tokens of one batch to the counts `finalize_state` turns into a
        vocabulary (a rank-1 batch is one document)."""
        if self._has_input_vocabulary:
            raise ValueError(
                f"Cannot adapt layer '{self.name}' ({type(self).__name__}): it was given a "
                "static vocabulary with the `vocabulary` argument.")
        array = as_numpy(data)
        if array.ndim == 0:
            array = array[None]
        documents = [array] if array.ndim == 1 else list(array.reshape(len(array), -1))
        self.update_documents([self._as_tokens(doc) for doc in documents])

    def update_documents(self, documents: Any) -> None:
        """Counts the tokens of `documents` (lists of tokens, of any lengths)."""
        for document in documents:
            self._token_counts.update(document)
        if self.output_mode == "tf_idf":
            for document in documents:
                self._document_counts.update(set(document))
            self._num_documents += len(documents)

    def finalize_state(self) -> None:
        """Builds the vocabulary from the counts (after `update_state` calls)."""
        if self._has_input_vocabulary or not self._token_counts:
            return
        counts = self._token_counts
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                counts.pop(special, None)
        ordered = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
        if self.max_tokens:
            ordered = ordered[:max(self.max_tokens - self._token_start_index(), 0)]
        tokens = [token for token, _ in ordered]
        idf = None
        if self.output_mode == "tf_idf":
            frequencies = np.array([self._document_counts[t] for t in tokens], np.float64)
            weights = np.log(1.0 + self._num_documents / (1.0 + frequencies))
            mean = weights.mean() if len(weights) else 0.0
            idf = np.concatenate([np.full(self._token_start_index(), mean), weights])
        self._install(tokens, idf)
        self.reset_state()

    # -- call -----------------------------------------------------------------------------
    def _convert_inputs(self, inputs):
        if isinstance(inputs, (list, tuple)):
            return convert_input(np.asarray(inputs))
        return super()._convert_inputs(inputs)

    def call(self, inputs: Any) -> Any:
        if context.thread.tracer is None:
            return tensor.new_tensor(self._compute(as_numpy(inputs)))
        return python_ops.py_function(lambda t: self._compute(np.asarray(t)), [inputs],
                                      self._output_dtype())

    def _output_dtype(self):
        if self.invert:
            return self._inverted_dtype()
        return dtypes.int64 if self.output_mode == "int" else dtypes.float32

    def _compute(self, values: np.ndarray) -> np.ndarray:
        if self.invert:
            return self._invert_ids(values)
        ids = self.lookup_ids(values)
        if self.output_mode == "int":
            return ids
        return self.encode_ids(ids)

    def encode_ids(self, ids: np.ndarray) -> np.ndarray:
        """`ids` (from `lookup_ids`, -1 for dropped masks) encoded by `output_mode`."""
        if self._frozen_vocab_size is None and not self.pad_to_max_tokens:
            raise RuntimeError(
                f"{type(self).__name__} '{self.name}': with output_mode={self.output_mode!r} "
                "and pad_to_max_tokens=False, the vocabulary must be set before the layer is "
                "called: pass `vocabulary` or call `adapt` with sample data.")
        if self.output_mode == "tf_idf" and self._idf is None:
            raise RuntimeError(
                f"{type(self).__name__} '{self.name}': output_mode='tf_idf' needs IDF "
                "weights: call `adapt` or `set_vocabulary(vocabulary, idf_weights)` first.")
        return encode(ids, self.output_mode, self._depth(), self._idf)

    def lookup_ids(self, values: np.ndarray) -> np.ndarray:
        """The int64 index of each value: vocabulary, OOV buckets and mask (0 in
        ``"int"`` mode, -1 elsewhere)."""
        tokens = self._tokens_of(values)
        if tokens.size == 0:
            return np.zeros(tokens.shape, np.int64)
        unique, inverse = np.unique(tokens, return_inverse=True)
        keys = unique.tolist()
        found = np.array([self._index.get(k, -1) for k in keys], np.int64)
        special = np.zeros(len(keys), bool)
        if self.mask_token is not None:
            is_mask = np.array([k == self.mask_token for k in keys], bool)
            found[is_mask] = 0 if self.output_mode == "int" else _DROPPED
            special |= is_mask
        oov = (found == -1) & ~special
        if oov.any():
            if self.num_oov_indices == 0 and call_context.state.probing:
                # The functional API's shape probe runs on dummy values (empty strings,
                # zeros) that need not be in the vocabulary.
                found[oov] = 0
            elif self.num_oov_indices == 0:
                missing = [keys[i] for i in np.nonzero(oov)[0][:10]]
                raise errors.InvalidArgumentError(
                    f"{type(self).__name__} '{self.name}': with num_oov_indices=0 all inputs "
                    f"must be in the vocabulary; found out-of-vocabulary values {missing}. "
                    "Consider setting num_oov_indices=1.", type(self).__name__)
            else:
                found[oov] = self._oov_start_index() + self._oov_buckets(
                    [keys[i] for i in np.nonzero(oov)[0]])
        return found[inverse.reshape(-1)].reshape(tokens.shape)

    def _oov_buckets(self, keys: list) -> np.ndarray:
        if self.num_oov_indices == 1:
            return np.zeros(len(keys), np.int64)
        return string_buckets(np.array(keys, dtype=object), self.num_oov_indices, self.salt,
                              getattr(self, "encoding", "utf-8"))

    def _inverted_dtype(self):
        return dtypes.int64

    def _invert_ids(self, values: np.ndarray) -> np.ndarray:
        if values.dtype.kind not in "iuf":
            raise ValueError(f"{type(self).__name__} with invert=True expects integer "
                             f"indices. Received: inputs of dtype {values.dtype}")
        ids = values.astype(np.int64)
        table = self.get_vocabulary()
        start = self._token_start_index()
        lookup = np.array([self.oov_token, *table[start:]], dtype=self._inverted_dtype())
        position = np.where((ids >= start) & (ids < len(table)), ids - start + 1, 0)
        out = lookup[position]
        if self.mask_token is not None:
            out = np.where(ids == 0, np.array(self.mask_token, out.dtype), out)
        return out

    def compute_output_shape(self, input_shape: Any) -> Any:
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        return encoded_shape(input_shape, self.output_mode, depth)

    def get_config(self) -> dict:
        # The vocabulary (learned or given) and its IDF weights travel in the config, so
        # that `from_config` and saved models rebuild a working layer (Keras writes a
        # learned vocabulary to a separate asset file instead).
        # Keras's form: the tokens without the special ones; in "tf_idf" mode with them,
        # so that each IDF weight (the OOV ones too) stays aligned with its token.
        vocabulary = idf = None
        if self._tokens:
            with_idf = self._idf is not None
            vocabulary = self.get_vocabulary(include_special_tokens=with_idf)
            if with_idf:
                idf = [float(w) for w in self._idf[:self.vocabulary_size()]]
        return {**super().get_config(),
                "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                "mask_token": self.mask_token, "output_mode": self.output_mode,
                "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                "vocabulary": vocabulary, "idf_weights": idf, "salt": self.salt,
                "vocabulary_size": self._frozen_vocab_size,
                "has_input_vocabulary": self._has_input_vocabulary}

    def _as_tokens(self, values) -> list:
        if not len(values):
            return []
        return self._tokens_of(np.asarray(values)).tolist()


class StringLookup(IndexLookup):
    """Maps strings to integer indices from a vocabulary (Keras 3's layer), or indices
    back to strings with ``invert=True``.

    Index layout: the mask token (if set, ``"int"`` mode only) at 0, then
    `num_oov_indices` OOV indices, then the vocabulary. In the other output modes the
    indices become one-hot, multi-hot, count or TF-IDF vectors of
    ``vocabulary_size()`` (or `max_tokens` with `pad_to_max_tokens`), and mask tokens
    count nowhere.

    Args:
        max_tokens: the largest vocabulary size (special tokens included), or None.
        num_oov_indices: how many OOV indices; unknown strings are spread over them by
            their FarmHash fingerprint (as in Keras). With 0, an unknown string raises.
        mask_token: a token meaning "no value" (index 0 in ``"int"`` mode), or None.
        oov_token: what `get_vocabulary` and ``invert=True`` return for OOV indices.
        vocabulary: a list/array of strings or the path of a text file (one per line).
        idf_weights: with ``"tf_idf"`` and a `vocabulary`, one weight per token.
        invert: map indices to strings instead (``"int"`` mode only).
        output_mode: ``"int"`` (int64 indices), ``"one_hot"``, ``"multi_hot"``,
            ``"count"`` or ``"tf_idf"`` (float32 vectors).
        pad_to_max_tokens: make the vectors `max_tokens` long.
        sparse: must be False (eagerflow has no sparse tensors).
        encoding: the text encoding of bytes inputs and vocabulary files.
        salt: an int or two ints: hash OOV strings with SipHash-2-4 keyed by it instead.

    Raises:
        ValueError: for invalid arguments (see Keras) or ``sparse=True``.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.StringLookup(vocabulary=["a", "b", "c"], output_mode="count")
        >>> layer([["a", "a", "x"]]).numpy()
        array([[1., 2., 0., 0.]], dtype=float32)
        >>> back = ef.layers.StringLookup(vocabulary=["a", "b", "c"], invert=True)
        >>> back([3, 0, 1]).numpy()
        array([b'c', b'[UNK]', b'a'], dtype=object)
    """

    def __init__(self, max_tokens: Any = None, num_oov_indices: int = 1, mask_token: Any = None,
                 oov_token: str = "[UNK]", vocabulary: Any = None, idf_weights: Any = None,
                 invert: bool = False, output_mode: str = "int", pad_to_max_tokens: bool = False,
                 sparse: bool = False, encoding: str = "utf-8", name: str | None = None,
                 salt: Any = None, **kwargs: Any) -> None:
        self.encoding = encoding
        kwargs.pop("vocabulary_dtype", None)
        kwargs.pop("oov_method", None)  # Keras's configs carry it; strings always use FarmHash
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary_dtype="string",
                         vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, name=name, salt=salt,
                         oov_method="farmhash", **kwargs)

    def _tokens_of(self, values) -> np.ndarray:
        array = np.asarray(values)
        if isinstance(values, list) and not values:
            return np.zeros(0, str)
        return to_text(array, self.encoding, type(self).__name__)

    def _token_from_line(self, line: str):
        return line

    def _inverted_dtype(self):
        return dtypes.string

    def _invert_ids(self, values: np.ndarray) -> np.ndarray:
        return dtypes.to_array(super()._invert_ids(values))  # string tensors hold bytes

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("oov_method", None)
        return {**config, "encoding": self.encoding}


class IntegerLookup(IndexLookup):
    """Maps integers (ids, codes, years...) to contiguous indices from a vocabulary
    (Keras 3's layer), or indices back to the integers with ``invert=True``.

    The index layout and output modes are those of `StringLookup`; the OOV token is -1 by
    default and there is no mask token unless one is given (0 is a common choice).

    Args:
        max_tokens: the largest vocabulary size (special tokens included), or None.
        num_oov_indices: how many OOV indices; an unknown value ``v`` goes to
            ``v % num_oov_indices`` (``oov_method="floormod"``) or to the FarmHash bucket
            of ``str(v)`` (``"farmhash"``).
        mask_token: an int meaning "no value" (index 0 in ``"int"`` mode), or None.
        oov_token: what `get_vocabulary` and ``invert=True`` return for OOV indices.
        vocabulary: a list/array of ints or the path of a text file (one per line).
        vocabulary_dtype: must be ``"int64"`` (as in Keras).
        idf_weights, invert, output_mode, sparse, pad_to_max_tokens: as in `StringLookup`.
        oov_method: ``"floormod"`` or ``"farmhash"``.
        salt: with ``"farmhash"``, an int or two ints keying SipHash-2-4 instead.

    Raises:
        ValueError: for invalid arguments, ``sparse=True`` or non-integer inputs.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
        >>> layer([[12, 1138, 42], [42, 1000, 36]]).numpy()
        array([[1, 3, 4],
               [4, 0, 2]])
    """

    def __init__(self, max_tokens: Any = None, num_oov_indices: int = 1, mask_token: Any = None,
                 oov_token: Any = -1, vocabulary: Any = None, vocabulary_dtype: str = "int64",
                 idf_weights: Any = None, invert: bool = False, output_mode: str = "int",
                 sparse: bool = False, pad_to_max_tokens: bool = False,
                 oov_method: str = "floormod", salt: Any = None, name: str | None = None,
                 **kwargs: Any) -> None:
        if vocabulary_dtype != "int64":
            raise ValueError("IntegerLookup: only vocabulary_dtype='int64' is supported. "
                             f"Received: vocabulary_dtype={vocabulary_dtype!r}")
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=None if mask_token is None else int(mask_token),
                         oov_token=None if oov_token is None else int(oov_token),
                         vocabulary_dtype=vocabulary_dtype, vocabulary=vocabulary,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode,
                         sparse=sparse, pad_to_max_tokens=pad_to_max_tokens,
                         oov_method=oov_method, salt=salt, name=name, **kwargs)

    def _tokens_of(self, values) -> np.ndarray:
        array = np.asarray(values)
        if isinstance(values, list) and not values:
            return np.zeros(0, np.int64)
        if array.dtype.kind in "iu":
            return array.astype(np.int64)
        if array.dtype.kind == "f" and np.all(np.isfinite(array)) and np.all(
                array == np.round(array)):
            return array.astype(np.int64)
        raise ValueError(
            f"IntegerLookup expects integer inputs. Received: inputs of dtype {array.dtype} "
            f"(values {array.reshape(-1)[:4].tolist()}...); use StringLookup for strings.")

    def _token_from_line(self, line: str):
        try:
            return int(line)
        except ValueError:
            raise ValueError(f"IntegerLookup: the vocabulary file has a line that is not an "
                             f"integer: {line!r}") from None

    def _oov_buckets(self, keys: list) -> np.ndarray:
        if self.num_oov_indices == 1:
            return np.zeros(len(keys), np.int64)
        if self.oov_method == "floormod":
            return np.mod(np.array(keys, np.int64), self.num_oov_indices)
        return string_buckets(np.array([str(k) for k in keys], dtype=object),
                              self.num_oov_indices, self.salt)

    def get_config(self) -> dict:
        return {**super().get_config(), "vocabulary_dtype": self.vocabulary_dtype,
                "oov_method": self.oov_method}
