"""Attention, AdditiveAttention and MultiHeadAttention against NumPy transcriptions of
Keras 3's formulas (checked against Keras 3.15 with copied weights when written), masks,
gradients to second order, configs, checkpoints and the functional API."""

import json

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import trackable_paths, weights_replaced

RNG = np.random.default_rng(0)
Q = RNG.standard_normal((2, 3, 4))
V = RNG.standard_normal((2, 5, 4))
K = RNG.standard_normal((2, 5, 4))
Q_MASK = np.array([[1, 1, 0], [1, 1, 1]], bool)
V_MASK = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)


def _softmax(scores, mask=None):
    if mask is not None:
        scores = scores + (1.0 - mask) * -1e9
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _dense_attention(scores, value, q_mask=None, v_mask=None, causal=False):
    mask = np.ones(scores.shape, bool)
    if v_mask is not None:
        mask = mask & v_mask[:, None, :]
    if causal:
        mask = mask & np.tri(scores.shape[-2], scores.shape[-1], dtype=bool)
    weights = _softmax(scores, mask)
    out = weights @ value
    if q_mask is not None:
        out = out * q_mask[..., None]
    return out, weights


@pytest.mark.parametrize("mode", ["dot", "dot-scaled", "concat"])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_matches_the_formula(mode, causal):
    layer = ef.layers.Attention(use_scale=mode != "dot", score_mode=mode.split("-")[0],
                                dtype="float64")
    layer([Q, V, K])
    if layer.scale is not None:
        layer.scale.assign(0.7)
    if layer.concat_score_weight is not None:
        layer.concat_score_weight.assign(1.3)
    out, weights = layer([Q, V, K], mask=[Q_MASK, V_MASK], return_attention_scores=True,
                         use_causal_mask=causal)
    if mode == "concat":
        scores = 1.3 * np.tanh(0.7 * (Q[:, :, None] + K[:, None])).sum(-1)
    else:
        scores = Q @ K.transpose(0, 2, 1) * (0.7 if mode == "dot-scaled" else 1.0)
    expected_out, expected_weights = _dense_attention(scores, V, Q_MASK, V_MASK, causal)
    np.testing.assert_allclose(weights.numpy(), expected_weights, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out.numpy(), expected_out, rtol=1e-10, atol=1e-12)


def test_additive_attention_matches_the_formula():
    layer = ef.layers.AdditiveAttention(dtype="float64")
    layer([Q, V, K])
    scale = np.array([0.5, -1.0, 2.0, 0.1])
    layer.scale.assign(scale)
    out, weights = layer([Q, V, K], mask=[Q_MASK, V_MASK], return_attention_scores=True)
    scores = (scale * np.tanh(Q[:, :, None] + K[:, None])).sum(-1)
    expected_out, expected_weights = _dense_attention(scores, V, Q_MASK, V_MASK)
    np.testing.assert_allclose(weights.numpy(), expected_weights, rtol=1e-10)
    np.testing.assert_allclose(out.numpy(), expected_out, rtol=1e-10, atol=1e-12)
    plain = ef.layers.AdditiveAttention(use_scale=False)
    assert plain([Q, V]).shape == (2, 3, 4) and plain.weights == []


def test_masks_carried_by_the_inputs_are_used_and_propagated():
    ids = np.array([[3, 4, 0], [5, 0, 0]])
    embedded = ef.layers.Embedding(10, 4, mask_zero=True)(ids)
    layer = ef.layers.Attention()
    out = layer([embedded, embedded])
    np.testing.assert_array_equal(out._keras_mask.numpy(), ids != 0)
    np.testing.assert_array_equal(out.numpy()[ids == 0], 0.0)
    explicit = layer([embedded, embedded], mask=[ids != 0, ids != 0])
    np.testing.assert_allclose(explicit.numpy(), out.numpy())


def _mha_reference(layer, q, v, k, mask=None):
    wq, bq, wk, bk, wv, bv, wo, bo = [w.numpy() for w in layer.weights]
    pq = np.einsum("abc,cde->abde", q, wq) + bq
    pk = np.einsum("abc,cde->abde", k, wk) + bk
    pv = np.einsum("abc,cde->abde", v, wv) + bv
    scores = np.einsum("aecd,abcd->acbe", pk, pq / np.sqrt(wq.shape[-1]))
    weights = _softmax(scores, None if mask is None else mask[:, None])
    attended = np.einsum("acbe,aecd->abcd", weights, pv)
    return np.einsum("abcd,cde->abe", attended, wo) + bo, weights


def test_multi_head_attention_matches_the_formula_with_every_mask():
    q = RNG.standard_normal((2, 4, 6))
    v = RNG.standard_normal((2, 5, 3))
    k = RNG.standard_normal((2, 5, 7))
    attention_mask = RNG.random((2, 4, 5)) > 0.2
    layer = ef.layers.MultiHeadAttention(num_heads=3, key_dim=2, value_dim=4, output_shape=5,
                                         bias_initializer="random_normal", dtype="float64")
    out, scores = layer(q, v, k, value_mask=V_MASK, attention_mask=attention_mask,
                        use_causal_mask=True, return_attention_scores=True)
    assert [w.shape for w in layer.weights] == [(6, 3, 2), (3, 2), (7, 3, 2), (3, 2),
                                                (3, 3, 4), (3, 4), (3, 4, 5), (5,)]
    mask = V_MASK[:, None, :] & attention_mask & np.tri(4, 5, dtype=bool)
    expected_out, expected_scores = _mha_reference(layer, q, v, k, mask)
    np.testing.assert_allclose(scores.numpy(), expected_scores, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out.numpy(), expected_out, rtol=1e-9, atol=1e-12)
    plain_out, _ = _mha_reference(layer, q, v, k)
    np.testing.assert_allclose(layer(q, v, k).numpy(), plain_out, rtol=1e-9)


def test_multi_head_attention_dropout_only_in_training():
    layer = ef.layers.MultiHeadAttention(num_heads=2, key_dim=3, dropout=0.5, seed=1)
    x = ef.constant(RNG.standard_normal((2, 4, 6)), ef.float32)
    np.testing.assert_array_equal(layer(x, x).numpy(), layer(x, x, training=False).numpy())
    assert not np.allclose(layer(x, x, training=True).numpy(), layer(x, x).numpy())


def test_multi_head_attention_fused_op_matches_the_composed_path():
    # Dropout in training takes the composed path (einsums, masked softmax, dropout); with a
    # rate of 1e-12 it drops nothing, so both paths must agree, gradients included.
    layer = ef.layers.MultiHeadAttention(num_heads=3, key_dim=2, dropout=1e-12, seed=3,
                                         bias_initializer="random_normal", dtype="float64")
    q, v = ef.constant(RNG.standard_normal((2, 4, 6))), ef.constant(RNG.standard_normal((2, 5, 6)))
    attention_mask = RNG.random((2, 4, 5)) > 0.3
    results = []
    for training in (False, True):
        with ef.GradientTape() as tape:
            tape.watch([q, v])
            out, scores = layer(q, v, attention_mask=attention_mask, training=training,
                                return_attention_scores=True)
            loss = ef.reduce_sum(out * out) + ef.reduce_sum(scores[..., 0])
        results.append([out, scores, *tape.gradient(loss, [q, v, *layer.trainable_weights])])
    for fused, composed in zip(*results, strict=True):
        np.testing.assert_allclose(fused.numpy(), composed.numpy(), rtol=1e-9, atol=1e-12)
    graph = ef.function(lambda a, b: layer(a, b)).get_concrete_function(q, v).graph
    names = {op.type for op in graph.operations}
    assert "FusedAttention" in names and "Einsum" not in names, names


def test_gradients_to_second_order():
    attention = ef.layers.Attention(use_scale=True, score_mode="concat", dtype="float64")
    attention([Q[:1], V[:1]])

    def attend(q, v, scale, weight):
        with weights_replaced(attention, attention.trainable_weights, [scale, weight]):
            return attention([q, v], mask=[None, V_MASK[:1]])

    ef.testing.check_gradients(attend, Q[:1], V[:1], ef.constant(0.8, ef.float64),
                               ef.constant(1.2, ef.float64))
    mha = ef.layers.MultiHeadAttention(num_heads=2, key_dim=2, dtype="float64")
    q, v = RNG.standard_normal((1, 3, 4)), RNG.standard_normal((1, 2, 4))
    mha(q, v)

    def multi_head(q, v, *weights):
        with weights_replaced(mha, mha.trainable_weights, weights):
            return mha(q, v, use_causal_mask=True)

    ef.testing.check_gradients(multi_head, q, v, *[ef.constant(w.numpy())
                                                   for w in mha.trainable_weights])


def test_configs_checkpoints_and_the_functional_api():
    layer = ef.layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4, dropout=0.1,
                                         output_shape=7, kernel_regularizer="l2")
    config = json.loads(json.dumps(layer.get_config()))
    clone = ef.layers.MultiHeadAttention.from_config(config)
    assert clone.get_config() == layer.get_config()
    query = ef.Input((5, 6))
    value = ef.Input((3, 2))
    output = layer(query, value)
    assert output.shape == (None, 5, 7)
    model = ef.Model([query, value], output)
    q, v = RNG.standard_normal((2, 5, 6)), RNG.standard_normal((2, 3, 2))
    np.testing.assert_allclose(model([q, v]).numpy(), layer(q, v).numpy(), rtol=1e-6)
    assert len(layer.losses) == 4  # the kernels' L2 penalties
    paths = sorted(trackable_paths(layer))
    assert paths == ["key_dense/bias", "key_dense/kernel", "output_dense/bias",
                     "output_dense/kernel", "query_dense/bias", "query_dense/kernel",
                     "value_dense/bias", "value_dense/kernel"]
    for cls, kwargs in ((ef.layers.Attention, {"use_scale": True, "score_mode": "concat"}),
                        (ef.layers.AdditiveAttention, {"use_scale": False})):
        original = cls(dropout=0.2, **kwargs)
        assert cls.from_config(original.get_config()).get_config() == original.get_config()
        q_in, v_in = ef.Input((3, 4)), ef.Input((5, 4))
        assert original([q_in, v_in]).shape == (None, 3, 4)


def test_fit_trains_through_attention():
    ids = ef.Input((6,), dtype="int32")
    x = ef.layers.Embedding(20, 8, mask_zero=True)(ids)
    x = ef.layers.MultiHeadAttention(num_heads=2, key_dim=4)(x, x)
    x = ef.layers.GlobalAveragePooling1D()(x)
    model = ef.Model(ids, ef.layers.Dense(1)(x))
    model.compile(optimizer="adam", loss="mse")
    data = RNG.integers(0, 20, (64, 6))
    target = (data[:, :1] > 10).astype("float32")
    history = model.fit(data, target, epochs=5, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


@pytest.mark.parametrize("make, message", [
    (lambda: ef.layers.Attention(score_mode="add"), "score_mode must be 'dot' or 'concat'"),
    (lambda: ef.layers.Attention(dropout=1.5), r"dropout must be a float in \[0, 1\)"),
    (lambda: ef.layers.MultiHeadAttention(num_heads=0, key_dim=2), "num_heads"),
    (lambda: ef.layers.MultiHeadAttention(2, 2, attention_axes=(1, 2)), "attention_axes"),
    (lambda: ef.layers.MultiHeadAttention(2, 2, output_shape=(3, 4)), "output_shape"),
])
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"list of inputs, namely \[query, value\]"):
        ef.layers.Attention()(ef.ones([1, 2, 3]))
    with pytest.raises(ValueError, match="query must have rank 3"):
        ef.layers.Attention()([ef.ones([2, 3]), ef.ones([1, 2, 3])])
    with pytest.raises(ValueError, match="same last dimension"):
        ef.layers.AdditiveAttention()([ef.ones([1, 2, 3]), ef.ones([1, 2, 4])])
    with pytest.raises(ValueError, match="query must have rank 3"):
        ef.layers.MultiHeadAttention(2, 2)(ef.ones([1, 2, 3, 4]), ef.ones([1, 2, 3, 4]))
    with pytest.raises(ValueError, match=r"attention_mask must have shape \(batch, Tq, Tv\)"):
        ef.layers.MultiHeadAttention(2, 2)(ef.ones([1, 2, 3]), ef.ones([1, 4, 3]),
                                           attention_mask=np.ones((1, 2, 3), bool))
def test_sliding_window_is_a_band_and_composes_with_the_causal_mask():
    # Keras 3.15: query step i attends to key steps j with |i - j| < sliding_window.
    layer = ef.layers.MultiHeadAttention(num_heads=2, key_dim=3, sliding_window=2)
    x = ef.random.normal((1, 5, 4), seed=1)
    _, scores = layer(x, x, return_attention_scores=True, use_causal_mask=True)
    i, j = np.indices((5, 5))
    allowed = (np.abs(i - j) < 2) & (j <= i)
    assert np.all(scores.numpy()[..., ~allowed] == 0) and np.all(scores.numpy()[..., allowed] > 0)
    assert layer.get_config()["sliding_window"] == 2
    with pytest.raises(ValueError, match="sliding_window"):
        ef.layers.MultiHeadAttention(num_heads=2, key_dim=3, sliding_window=0)
