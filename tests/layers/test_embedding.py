"""Embedding and mask_zero."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

IDS = np.array([[1, 2, 0], [4, 0, 0]], "int32")


def test_embedding_contract_and_lookup():
    table = np.random.default_rng(0).standard_normal((5, 3)).astype("float32")
    run_layer_test(ef.layers.Embedding, {"input_dim": 5, "output_dim": 3}, input_data=IDS,
                   expected_output_shape=(2, 3, 3), expected_num_trainable_weights=1,
                   weights=[table], expected_output=table[IDS])


def test_embedding_mask_zero_attaches_a_mask():
    layer = ef.layers.Embedding(5, 2, mask_zero=True)
    out = layer(IDS)
    assert ef.layers.masking.get_mask(out).numpy().tolist() == (IDS != 0).tolist()
    assert ef.layers.masking.get_mask(ef.layers.Embedding(5, 2)(IDS)) is None


def test_embedding_accepts_float_ids_and_rejects_out_of_range():
    layer = ef.layers.Embedding(5, 2)
    assert layer(np.array([[1.0, 2.0]])).shape == (1, 2, 2)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"not in \[0, 5\)"):
        layer(np.array([[7]]))


def test_embedding_argument_errors():
    with pytest.raises(ValueError, match="input_dim=0"):
        ef.layers.Embedding(0, 3)
    with pytest.raises(ValueError, match="output_dim=-1"):
        ef.layers.Embedding(3, -1)
