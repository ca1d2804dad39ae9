"""`TextVectorization`: raw strings to token ids or token vectors (Keras 3's layer).

Each string goes through four steps: standardize (by default lowercase ASCII letters and
strip ASCII punctuation, as TensorFlow's ``strings.lower`` and Keras's punctuation
pattern do), split (on runs of ASCII whitespace, into characters, or not at all), n-grams
(joined by a space), then a `StringLookup` whose mask token ``""`` is index 0 in
``"int"`` mode. The vocabulary comes from `adapt` or is given.

Like the lookup layers, the computation is NumPy work on text: eager calls and
``Dataset.map`` compute directly, and a traced `ef.function` (a model's `fit` step) runs
the layer as an ``ef.py_function`` node. In ``"int"`` mode the number of tokens varies
from batch to batch, so inside a traced function the layer needs a fixed
`output_sequence_length`.

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.TextVectorization()
    >>> layer.adapt(["The cat sat.", "The dog!"])
    >>> layer.get_vocabulary()
    ['', '[UNK]', 'the', 'sat', 'dog', 'cat']
    >>> layer(["the dog sat", "a cat"]).numpy()
    array([[2, 4, 3],
           [1, 5, 0]])
"""

from __future__ import annotations

import re
import string
from typing import Any

import numpy as np

from eagerflow.core import context, dtypes, errors, tensor
from eagerflow.graph import python_ops
from eagerflow.layers import call_context, lookup
from eagerflow.layers.base import Layer
from eagerflow.ops import creation as creation_ops
from eagerflow.saving import load_budget, registry

_STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = ("whitespace", "character")
# TensorFlow's `strings.lower` changes ASCII letters only, and Keras strips the 32 ASCII
# punctuation characters; str.translate does both in one pass.
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_STRIP = str.maketrans("", "", string.punctuation)
_LOWER_AND_STRIP = str.maketrans(string.ascii_uppercase, string.ascii_lowercase,
                                 string.punctuation)
_TABLES = {"lower": _LOWER, "strip_punctuation": _STRIP,
           "lower_and_strip_punctuation": _LOWER_AND_STRIP}
_WHITESPACE = re.compile(r"[ \t\n\v\f\r]+")  # TensorFlow splits on ASCII whitespace only


def _serialize_callable(value):
    """A registered function's name form for configs; other callables stay as they are."""
    if value is None or isinstance(value, str):
        return value
    try:
        return registry.serialize(value)
    except errors.InvalidArgumentError:
        return value


def _deserialize_callable(value):
    if isinstance(value, dict):
        return registry.deserialize(value)
    return value


class TextVectorization(Layer):
    """Turns strings into int64 token ids (``"int"``) or float32 token vectors
    (``"one_hot"``, ``"multi_hot"``, ``"count"``, ``"tf_idf"``), Keras 3's layer.

    In ``"int"`` mode each string becomes a row of ids padded with 0 to the longest row
    of the batch, or padded/truncated to `output_sequence_length`. Index 0 is padding
    (the mask token ``""``) and index 1 out-of-vocabulary; in the vector modes there is no
    padding index and index 0 is out-of-vocabulary.

    Args:
        max_tokens: the largest vocabulary size (padding and OOV included), or None.
        standardize: ``"lower_and_strip_punctuation"`` (default), ``"lower"``,
            ``"strip_punctuation"``, None, or a callable receiving a string tensor (UTF-8,
            as in Keras: write it with `ef.strings` ops) and returning strings of the
            same shape.
        split: ``"whitespace"`` (default), ``"character"``, None (each string is one
            token), or a callable receiving a rank-1 NumPy array of str and returning
            one list (or array) of tokens per string.
        ngrams: None, an int ``n`` (all n-grams from 1 to n) or a tuple of widths.
        output_mode: ``"int"`` (default), ``"one_hot"``, ``"multi_hot"``, ``"count"`` or
            ``"tf_idf"``.
        output_sequence_length: in ``"int"`` mode, the fixed length of each row.
        pad_to_max_tokens: make the vectors `max_tokens` long.
        vocabulary: a list of tokens or the path of a text file (one per line).
        idf_weights: with ``"tf_idf"`` and a `vocabulary`, one weight per token.
        ragged: must be False (eagerflow has no ragged tensors): rows are padded.
        sparse: must be False (eagerflow has no sparse tensors).
        encoding: the encoding of bytes inputs and vocabulary files.

    Raises:
        ValueError: for unknown option strings, bad `ngrams`, `output_sequence_length`
            outside ``"int"`` mode, or ``ragged``/``sparse`` set to True.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.TextVectorization(vocabulary=["cat", "dog"],
        ...                                     output_sequence_length=4)
        >>> layer(["Dog, cat; bird"]).numpy()
        array([[3, 2, 1, 0]])
        >>> counts = ef.layers.TextVectorization(vocabulary=["cat", "dog"],
        ...                                      output_mode="count")
        >>> counts(["cat cat bird"]).numpy()
        array([[1., 2., 0.]], dtype=float32)
    """

    def __init__(self, max_tokens: Any = None, standardize: str = "lower_and_strip_punctuation",
                 split: str = "whitespace", ngrams: Any = None, output_mode: str = "int",
                 output_sequence_length: Any = None, pad_to_max_tokens: bool = False,
                 vocabulary: Any = None, idf_weights: Any = None, sparse: bool = False,
                 ragged: bool = False, encoding: str = "utf-8", name: str | None = None,
                 **kwargs: Any) -> None:
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        kwargs.setdefault("autocast", False)
        super().__init__(name=name, **kwargs)
        standardize, split = _deserialize_callable(standardize), _deserialize_callable(split)
        if not (standardize is None or callable(standardize) or standardize in _STANDARDIZE):
            raise ValueError(f"TextVectorization: `standardize` must be one of {_STANDARDIZE}, "
                             f"None or a callable. Received: standardize={standardize!r}")
        if not (split is None or callable(split) or split in _SPLIT):
            raise ValueError(f"TextVectorization: `split` must be one of {_SPLIT}, None or a "
                             f"callable. Received: split={split!r}")
        output_mode = lookup.output_mode_arg(output_mode, "TextVectorization")
        if isinstance(ngrams, list):
            ngrams = tuple(ngrams)
        if not (ngrams is None or (isinstance(ngrams, int) and not isinstance(ngrams, bool)
                                   and ngrams > 0)
                or (isinstance(ngrams, tuple) and ngrams and all(
                    isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in ngrams))):
            raise ValueError("TextVectorization: `ngrams` must be None, a positive int or a "
                             f"tuple of positive ints. Received: ngrams={ngrams!r}")
        if output_sequence_length is not None:
            if output_mode != "int":
                raise ValueError(
                    "TextVectorization: `output_sequence_length` must not be set if "
                    f"`output_mode` is not 'int'. Received: output_mode={output_mode!r}, "
                    f"output_sequence_length={output_sequence_length!r}")
            if isinstance(output_sequence_length, bool) or not isinstance(
                    output_sequence_length, (int, np.integer)) or output_sequence_length < 1:
                raise ValueError(
                    "TextVectorization: `output_sequence_length` must be None or a positive "
                    f"int. Received: output_sequence_length={output_sequence_length!r}")
            output_sequence_length = int(output_sequence_length)
        if ragged:
            raise ValueError(
                "TextVectorization: ragged=True is not supported (eagerflow has no ragged "
                "tensors); leave ragged=False to get rows padded with 0, or set "
                "output_sequence_length for a fixed length.")
        self._standardize = standardize
        self._split: Any = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._encoding = encoding
        self._ragged = False
        self._lookup_layer = lookup.StringLookup(
            max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens, mask_token="", output_mode=output_mode,
            sparse=sparse, encoding=encoding, has_input_vocabulary=has_input_vocabulary,
            vocabulary_size=vocabulary_size, name=f"{self.name}_lookup")

    # -- vocabulary -------------------------------------------------------------------------
    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The vocabulary in index order (padding ``""`` and ``"[UNK]"`` first unless
        `include_special_tokens` is False).

        Examples:
            >>> import eagerflow as ef
            >>> ef.layers.TextVectorization(vocabulary=["hi"]).get_vocabulary()
            ['', '[UNK]', 'hi']
        """
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        """The number of indices, padding and OOV included.

        Examples:
            >>> import eagerflow as ef
            >>> ef.layers.TextVectorization(vocabulary=["hi", "yo"]).vocabulary_size()
            4
        """
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Replaces the vocabulary (see `StringLookup.set_vocabulary`).

        Examples:
            >>> import eagerflow as ef
            >>> layer = ef.layers.TextVectorization()
            >>> layer.set_vocabulary(["hi"])
            >>> layer(["Hi there"]).numpy()
            array([[2, 1]])
        """
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    # -- adapt ----------------------------------------------------------------------------
    def adapt(self, data: Any, batch_size: Any = None, steps: Any = None) -> None:
        """Learns the vocabulary (and IDF weights in ``"tf_idf"`` mode) from strings.

        Tokens are sorted by frequency, ties by the token (larger first), and cut to
        `max_tokens`; each string is a document for the document frequencies.

        Args:
            data: an array, list or tensor of strings (one per sample), an `ef.data`
                Dataset of batches of strings, or any iterable of batches.
            batch_size: accepted for Keras compatibility (arrays are read at once).
            steps: for datasets and iterables, how many batches to read.

        Raises:
            ValueError: if the layer was given its vocabulary, or for non-string data.

        Examples:
            >>> import eagerflow as ef
            >>> ds = ef.data.Dataset.from_tensor_slices(["a b", "b c", "b"]).batch(2)
            >>> layer = ef.layers.TextVectorization()
            >>> layer.adapt(ds)
            >>> layer.get_vocabulary()
            ['', '[UNK]', 'b', 'c', 'a']
        """
        self.reset_state()
        for batch in lookup.batches_of(data, steps, "TextVectorization"):
            self.update_state(batch)
        self.finalize_state()

    def update_state(self, data: Any) -> None:
        """Counts the tokens of one batch of strings."""
        if self._lookup_layer._has_input_vocabulary:
            raise ValueError(
                f"Cannot adapt layer '{self.name}' (TextVectorization): it was given a static "
                "vocabulary with the `vocabulary` argument.")
        documents, _ = self._documents(lookup.as_numpy(data))
        self._lookup_layer.update_documents(documents)

    def finalize_state(self) -> None:
        """Builds the vocabulary from the counts of `update_state`."""
        self._lookup_layer.finalize_state()

    def reset_state(self) -> None:
        """Forgets the counts of `update_state`."""
        self._lookup_layer.reset_state()

    # -- preprocessing ---------------------------------------------------------------------
    def _standardized(self, text: np.ndarray) -> np.ndarray:
        if self._standardize is None:
            return text
        if callable(self._standardize):
            # as in Keras, the callable gets a string tensor (ef.strings ops work on it)
            result = lookup.as_numpy(self._standardize(creation_ops.constant(text)))
            result = lookup.to_text(result, "utf-8", "TextVectorization's standardize")
            if result.shape != text.shape:
                raise ValueError(
                    "TextVectorization: the `standardize` callable must return an array of "
                    f"the shape it received ({text.shape}). Received: {result.shape}")
            return result
        table = _TABLES[self._standardize]
        values = [value.translate(table) for value in text.reshape(-1).tolist()]
        return np.array(values, dtype=str).reshape(text.shape) if values else text

    def _split_one(self, texts: list) -> list:
        if self._split == "whitespace":
            return [[t for t in _WHITESPACE.split(text) if t] for text in texts]
        if self._split == "character":
            return [list(text) for text in texts]
        result = self._split(np.array(texts, dtype=str))
        if isinstance(result, tensor.Tensor) or hasattr(result, "_read"):
            result = lookup.as_numpy(result)
        rows = [lookup.to_text(np.asarray(row, dtype=object if not len(row) else None),
                               self._encoding, "TextVectorization's split").tolist()
                if not isinstance(row, str) else [row] for row in result]
        if len(rows) != len(texts):
            raise ValueError(
                "TextVectorization: the `split` callable must return one list of tokens per "
                f"string ({len(texts)}). Received {len(rows)}")
        return rows

    def _with_ngrams(self, tokens: list) -> list:
        if self._ngrams is None:
            return tokens
        return [" ".join(tokens[i:i + width]) for width in self._ngrams
                for i in range(len(tokens) - width + 1)]

    def _documents(self, values: np.ndarray):
        """Token lists (one per string) and whether the input was a single string.

        Without `split`, the strings themselves are the tokens: each row of the input is
        one document."""
        text = self._standardized(lookup.to_text(values, self._encoding, "TextVectorization"))
        if self._split is None:
            rows = text[None] if text.ndim <= 1 else text.reshape(len(text), -1)
            return [self._with_ngrams(row.tolist()) for row in rows], text.ndim <= 1
        scalar = text.ndim == 0
        if text.ndim > 1:
            if text.shape[-1] != 1 or text.ndim > 2:
                raise ValueError(
                    "TextVectorization: to split strings into tokens, the inputs must have "
                    "rank 1 or shape (batch, 1). Received: inputs.shape="
                    f"{tuple(text.shape)}")
            text = text[:, 0]
        texts = [text.item()] if scalar else text.tolist()
        return [self._with_ngrams(tokens) for tokens in self._split_one(texts)], scalar

    # -- call -----------------------------------------------------------------------------
    def _convert_inputs(self, inputs):
        if isinstance(inputs, (list, tuple)):
            inputs = np.asarray(inputs)
        return super()._convert_inputs(inputs)

    def call(self, inputs: Any) -> Any:
        if context.thread.tracer is None:
            return tensor.new_tensor(self._compute(lookup.as_numpy(inputs)))
        if (self._output_mode == "int" and self._output_sequence_length is None
                and self._split is not None):
            raise ValueError(
                f"TextVectorization '{self.name}': inside a traced function (ef.function, or "
                "fit/evaluate/predict without run_eagerly=True) output_mode='int' needs a "
                "fixed `output_sequence_length`, since the number of tokens changes from "
                "batch to batch. Set output_sequence_length, or apply the layer in the data "
                "pipeline: dataset.map(lambda x, y: (vectorizer(x), y)).")
        out_dtype = dtypes.int64 if self._output_mode == "int" else dtypes.float32
        return python_ops.py_function(lambda t: self._compute(np.asarray(t)), [inputs], out_dtype)

    def _compute(self, values: np.ndarray) -> np.ndarray:
        strings = self._lookup_layer
        if self._split is None and self._ngrams is None:
            # The strings are the tokens: the lookup keeps the input's shape.
            text = self._standardized(lookup.to_text(values, self._encoding,
                                                     "TextVectorization"))
            ids = strings.lookup_ids(text)
            return ids if self._output_mode == "int" else strings.encode_ids(ids)
        documents, scalar = self._documents(values)
        flat = [token for document in documents for token in document]
        ids = strings.lookup_ids(np.array(flat, dtype=str)) if flat else np.zeros(0, np.int64)
        longest = max((len(d) for d in documents), default=0)
        length = self._output_sequence_length if self._output_mode == "int" and (
            self._output_sequence_length is not None) else longest
        if call_context.state.probing and length == longest and self._output_mode == "int":
            # The functional API finds shapes by running on dummy strings (two batch
            # sizes); the row length depends on the data, so let it differ between the
            # probes and be recorded as unknown (None), as Keras's symbolic shape says.
            length = 30 + len(documents)
        # Padding is id 0 (the mask) in "int" mode and counts nowhere in the other modes.
        pad = 0 if self._output_mode == "int" else -1
        load_budget.charge((len(documents), length), np.int64, f"layer {self.name!r}: "
                           f"a token grid of shape {(len(documents), length)}",
                           transient=True)
        grid = np.full((len(documents), length), pad, np.int64)
        start = 0
        for row, document in enumerate(documents):
            count = min(len(document), length)
            grid[row, :count] = ids[start:start + count]
            start += len(document)
        if scalar:
            grid = grid[0]
        if self._output_mode == "int":
            return grid
        return strings.encode_ids(grid)

    def compute_output_shape(self, input_shape: Any) -> Any:
        input_shape = tuple(input_shape)
        batch = input_shape[:1] if input_shape else ()
        if self._output_mode == "int":
            if self._split is None and self._ngrams is None:
                return input_shape
            return (*batch, self._output_sequence_length)
        # The shape `call` returns (Keras's own formula adds an axis when splitting).
        if self._split is None and self._ngrams is None:
            return self._lookup_layer.compute_output_shape(input_shape)
        return self._lookup_layer.compute_output_shape((*batch, None))

    def get_config(self) -> dict:
        strings = self._lookup_layer
        lookup_config = strings.get_config()
        return {**super().get_config(),
                "max_tokens": strings.max_tokens,
                "standardize": _serialize_callable(self._standardize),
                "split": _serialize_callable(self._split),
                "ngrams": self._ngrams_arg, "output_mode": self._output_mode,
                "output_sequence_length": self._output_sequence_length,
                "pad_to_max_tokens": strings.pad_to_max_tokens, "sparse": False,
                "ragged": False, "vocabulary": lookup_config["vocabulary"],
                "idf_weights": lookup_config["idf_weights"], "encoding": self._encoding,
                "vocabulary_size": strings._frozen_vocab_size,
                "has_input_vocabulary": strings._has_input_vocabulary}
