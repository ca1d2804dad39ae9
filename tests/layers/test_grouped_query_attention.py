"""GroupQueryAttention: a NumPy transcription of Keras 3's computation (heads shared by
groups, masks, causal and sliding-window masks, gate), equality with MultiHeadAttention
when every query head has its own key/value head, the layer contract, config, errors.
(Outputs also equal Keras 3.15.1's for copied weights: checked when it was written.)"""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

RNG = np.random.default_rng(0)


def reference(layer, q, v, mask=None, causal=False):
    w = {x.name: x.numpy().astype(np.float64) for x in layer.weights}
    d, g = layer.head_dim, layer.num_repeats
    proj = {role: np.einsum("btf,fhd->bthd", x, w[f"{role}/kernel"]) + w[f"{role}/bias"]
            for role, x in (("query", q), ("key", v), ("value", v))}
    key = np.repeat(proj["key"], g, axis=2)
    value = np.repeat(proj["value"], g, axis=2)
    scores = np.einsum("bqhd,bkhd->bhqk", proj["query"] / np.sqrt(d), key)
    allowed = np.ones((q.shape[1], v.shape[1]), bool)
    if causal:
        allowed &= np.tril(np.ones_like(allowed))
    if layer.sliding_window:
        rows, cols = np.indices(allowed.shape)
        allowed &= np.abs(rows - cols) < layer.sliding_window
    allowed = allowed[None] if mask is None else allowed[None] & mask
    scores = np.where(allowed[:, None], scores, -1e9)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    attended = np.einsum("bhqk,bkhd->bqhd", weights, value)
    if layer.use_gate:
        gate = np.einsum("btf,fhd->bthd", q, w["gate/kernel"]) + w["gate/bias"]
        attended = attended / (1 + np.exp(-gate))
    out = np.einsum("bqhd,hdf->bqf", attended, w["attention_output/kernel"])
    return out + w["attention_output/bias"], weights


@pytest.mark.parametrize("kwargs, causal", [
    ({"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2}, False),
    ({"head_dim": 2, "num_query_heads": 3, "num_key_value_heads": 1}, True),
    ({"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1, "use_gate": True,
      "sliding_window": 2}, True),
])
def test_matches_the_reference(kwargs, causal):
    layer = ef.layers.GroupQueryAttention(**kwargs, bias_initializer="random_normal")
    q = RNG.normal(size=(2, 5, 6))
    v = q if causal else RNG.normal(size=(2, 7, 4))
    mask = None if causal else RNG.random((2, 5, 7)) > 0.3
    out, scores = layer(q, v, attention_mask=mask, use_causal_mask=causal,
                        return_attention_scores=True)
    want_out, want_scores = reference(layer, q, v, mask, causal)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-4, atol=1e-6)


def test_one_key_value_head_per_query_head_is_multi_head_attention():
    gqa = ef.layers.GroupQueryAttention(3, 2, 2)
    mha = ef.layers.MultiHeadAttention(2, 3)
    q = RNG.normal(size=(2, 4, 5)).astype(np.float32)
    gqa(q, q), mha(q, q)
    gqa.set_weights(mha.get_weights())
    np.testing.assert_allclose(gqa(q, q, use_causal_mask=True).numpy(),
                               mha(q, q, use_causal_mask=True).numpy(), rtol=1e-5, atol=1e-6)


def test_contract_config_and_masks_from_inputs():
    run_layer_test(ef.layers.GroupQueryAttention,
                   {"head_dim": 2, "num_query_heads": 4, "num_key_value_heads": 2},
                   input_shape=(2, 3, 4), call_kwargs={"value": RNG.normal(size=(2, 3, 4))
                                                       .astype(np.float32)},
                   expected_output_shape=(2, 3, 4), expected_num_trainable_weights=8,
                   check_gradients=False)
    layer = ef.layers.GroupQueryAttention(2, 4, 2, use_gate=True, sliding_window=3,
                                          dropout=0.1)
    config = layer.get_config()
    assert (config["use_gate"], config["sliding_window"], config["dropout"]) == (True, 3, 0.1)
    assert ef.layers.GroupQueryAttention.from_config(config).get_config() == config
    tokens = ef.constant([[3, 4, 0, 0]])
    embedded = ef.layers.Embedding(6, 4, mask_zero=True)(tokens)
    _, scores = ef.layers.GroupQueryAttention(2, 2, 1)(embedded, embedded,
                                                       return_attention_scores=True)
    np.testing.assert_allclose(scores.numpy()[..., :2, 2:], 0.0, atol=1e-7)  # padded keys


def test_gradients_in_float64():
    layer = ef.layers.GroupQueryAttention(2, 2, 1, use_gate=True, dtype="float64")
    q = RNG.normal(size=(1, 3, 4))
    ef.testing.check_gradients(lambda x: layer(x, x, use_causal_mask=True), q, order=1)


@pytest.mark.parametrize("kwargs, match", [
    ({"head_dim": 2, "num_query_heads": 3, "num_key_value_heads": 2}, "multiple"),
    ({"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1, "sliding_window": 0},
     "sliding_window"),
    ({"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1,
      "flash_attention": True}, "flash_attention"),
    ({"head_dim": 0, "num_query_heads": 2, "num_key_value_heads": 1}, "head_dim"),
    ({"head_dim": 2, "num_query_heads": 2, "num_key_value_heads": 1, "dropout": 1.0},
     "dropout"),
])
def test_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ef.layers.GroupQueryAttention(**kwargs)
