"""keras.io's text classification example ("Text classification from scratch"): a
`TextVectorization` whose `standardize` is written with string ops, ported with only the
names changed. Expected values recorded from Keras 3.15 (TensorFlow 2.21)."""

import re
import string

import numpy as np

import eagerflow as ef


def custom_standardization(input_data):
    lowercase = ef.strings.lower(input_data)
    stripped_html = ef.strings.regex_replace(lowercase, "<br />", " ")
    return ef.strings.regex_replace(stripped_html, f"[{re.escape(string.punctuation)}]", "")


TRAIN = [
    "This movie was GREAT!<br /><br />I loved it, really.",
    "Terrible... the plot (if any) made no sense.<br />Avoid!",
    "An ok film; the acting was fine & the music great.",
    "I can't say I loved it: too long, too loud.",
]
TEST = ["GREAT music!<br />Loved the acting.", "No plot, no sense... terrible",
        "unknown words here"]


def test_the_standardization_gives_kerass_strings():
    assert custom_standardization(ef.constant(TEST)).numpy().tolist() == [
        b"great music loved the acting", b"no plot no sense terrible", b"unknown words here"]


def test_vectorized_output_matches_keras():
    layer = ef.layers.TextVectorization(standardize=custom_standardization, max_tokens=20,
                                        output_mode="int", output_sequence_length=8)
    layer.adapt(ef.data.Dataset.from_tensor_slices(TRAIN).batch(2))
    assert layer.get_vocabulary() == [
        "", "[UNK]", "the", "i", "was", "too", "loved", "it", "great", "this", "terrible",
        "sense", "say", "really", "plot", "ok", "no", "music", "movie", "made"]
    assert layer(np.array(TEST)).numpy().tolist() == [
        [8, 17, 6, 2, 1, 0, 0, 0], [16, 14, 16, 11, 10, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0, 0]]
    # inside a traced function and a dataset pipeline, as the example's `vectorize_text`
    traced = ef.function(lambda text: layer(text))
    assert traced(ef.constant(TEST)).numpy().tolist() == layer(ef.constant(TEST)).numpy().tolist()
    pairs = ef.data.Dataset.from_tensor_slices((TEST, [1, 0, 0])).batch(3)
    [(ids, _)] = list(pairs.map(lambda text, label: (layer(text), label)))
    assert ids.numpy()[1].tolist() == [16, 14, 16, 11, 10, 0, 0, 0]


def test_multi_hot_output_matches_keras():
    multi = ef.layers.TextVectorization(standardize=custom_standardization, max_tokens=10,
                                        output_mode="multi_hot")
    multi.adapt(TRAIN)
    assert multi(np.array(TEST)).numpy().tolist() == [
        [1, 1, 0, 0, 0, 1, 0, 1, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]]
