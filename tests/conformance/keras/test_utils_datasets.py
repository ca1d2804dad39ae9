"""Keras 3's dataset makers in `ef.utils` (text/image directories, time series, splits),
compared with values recorded from Keras 3.15 (keras.utils) on the same files."""

import os

import numpy as np
import pytest

import eagerflow as ef

pytest.importorskip("PIL")


def _make_tree(root):
    """Two classes (and a hidden directory) of texts and PNG images, made reproducibly."""
    from PIL import Image

    rng = np.random.RandomState(0)
    for c in ["b", "a", ".hidden"]:
        os.makedirs(os.path.join(root, "txt", c, "sub"), exist_ok=True)
        os.makedirs(os.path.join(root, "img", c), exist_ok=True)
        for i in range(3):
            with open(os.path.join(root, "txt", c, f"f{i}.txt"), "w") as f:
                f.write(f"{c}{i} " * (i + 1))
        with open(os.path.join(root, "txt", c, "sub", "deep.txt"), "w") as f:
            f.write("deep " + c)
        with open(os.path.join(root, "txt", c, "notes.md"), "w") as f:
            f.write("skipped")
        for i in range(2):
            pixels = rng.randint(0, 256, (5 + i, 7 - i, 3)).astype(np.uint8)
            Image.fromarray(pixels).save(os.path.join(root, "img", c, f"i{i}.png"))


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("tree"))
    _make_tree(root)
    return root


def _rows(ds):
    return sorted((t.numpy(), np.ravel(y.numpy()).tolist()) for t, y in ds)


# Recorded from Keras 3.15 on the tree above.
TEXT_ALL = [(b'a0 ', [0]), (b'a1 a1 ', [0]), (b'a2 a2 a2 ', [0]), (b'b0 ', [1]), (b'b1 b1 ', [1]), (b'b2 b2 b2 ', [1]), (b'deep a', [0]), (b'deep b', [1])]
TEXT_TRAIN = [(b'a1 a1 ', [0]), (b'b0 ', [1]), (b'b1 b1 ', [1]), (b'b2 b2 b2 ', [1]), (b'deep a', [0]), (b'deep b', [1])]
TEXT_VAL = [(b'a0 ', [0]), (b'a2 a2 a2 ', [0])]
TEXT_CAT = [(b'a0 ', [0.0, 1.0]), (b'a1 a', [0.0, 1.0]), (b'a2 a', [0.0, 1.0]), (b'b0 ', [1.0, 0.0]), (b'b1 b', [1.0, 0.0]), (b'b2 b', [1.0, 0.0]), (b'deep', [0.0, 1.0]), (b'deep', [1.0, 0.0])]
IMG_SUMS = [4355.75, 4341.25, 4434.417, 3978.125]
IMG_FIRST = [[[154.5832977294922, 133.4167022705078, 219.375], [95.625, 67.58329772949219, 113.625], [133.25, 201.4582977294922, 120.04170227050781], [136.2082977294922, 152.875, 109.66670227050781]], [[88.375, 65.125, 74.0], [58.625, 41.625, 36.375], [168.0, 123.0, 82.75], [167.125, 75.875, 218.625]], [[159.375, 171.7917022705078, 110.83329772949219], [222.625, 87.66670227050781, 106.0], [105.0833969116211, 114.2083969116211, 187.375], [91.95829772949219, 108.0, 53.625]]]
IMG_PAD_SUMS = [3458.906, 3240.5, 2709.656, 2993.75]
IMG_CROP_NEAREST = [('uint8', 4633), ('uint8', 4414), ('uint8', 5023), ('uint8', 3850)]
TS = [([[[2, 3], [6, 7], [10, 11]], [[6, 7], [10, 11], [14, 15]]], [10, 30])]
TS_SHUFFLED_SET = [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9], [9, 10, 11, 12], [12, 13, 14, 15], [15, 16, 17, 18], [18, 19, 20, 21], [21, 22, 23, 24], [24, 25, 26, 27]]
SPLIT_LEFT = [(2, 4), (3, 6), (1, 2), (0, 0), (8, 16), (7, 14), (6, 12)]
SPLIT_RIGHT = [(5, 10), (4, 8), (9, 18)]


def test_text_dataset_lists_labels_and_splits_as_keras(tree):
    make = ef.utils.text_dataset_from_directory
    ds = make(os.path.join(tree, "txt"), batch_size=None, shuffle=False, verbose=False)
    assert ds.class_names == ["a", "b"]
    assert _rows(ds) == TEXT_ALL
    kwargs = dict(batch_size=None, seed=3, validation_split=0.25, verbose=False)
    assert _rows(make(os.path.join(tree, "txt"), subset="training", **kwargs)) == TEXT_TRAIN
    assert _rows(make(os.path.join(tree, "txt"), subset="validation", **kwargs)) == TEXT_VAL
    both = make(os.path.join(tree, "txt"), subset="both", **kwargs)
    assert [_rows(part) for part in both] == [TEXT_TRAIN, TEXT_VAL]
    ds = make(os.path.join(tree, "txt"), batch_size=None, shuffle=False, verbose=False,
              label_mode="categorical", max_length=4, class_names=["b", "a"])
    assert _rows(ds) == TEXT_CAT


def test_text_dataset_batches(tree):
    ds = ef.utils.text_dataset_from_directory(os.path.join(tree, "txt"), batch_size=3,
                                              seed=1, verbose=False)
    assert [int(y.shape[0]) for _, y in ds] == [3, 3, 2]
    assert sorted(b for t, _ in ds for b in t.numpy().tolist()) == [r[0] for r in TEXT_ALL]


def test_image_dataset_values_as_keras(tree):
    make = ef.utils.image_dataset_from_directory
    ds = make(os.path.join(tree, "img"), batch_size=None, shuffle=False, image_size=(3, 4),
              verbose=False)
    images = [x.numpy() for x, _ in ds]
    assert all(x.dtype == np.float32 and x.shape == (3, 4, 3) for x in images)
    np.testing.assert_allclose([x.sum() for x in images], IMG_SUMS, rtol=1e-5)
    np.testing.assert_allclose(images[0], IMG_FIRST, rtol=1e-5, atol=1e-3)
    ds = make(os.path.join(tree, "img"), batch_size=None, shuffle=False, image_size=(3, 4),
              pad_to_aspect_ratio=True, verbose=False)
    np.testing.assert_allclose([x.numpy().sum() for x, _ in ds], IMG_PAD_SUMS, rtol=1e-5)
    ds = make(os.path.join(tree, "img"), batch_size=None, shuffle=False, image_size=(3, 4),
              crop_to_aspect_ratio=True, interpolation="nearest", verbose=False)
    assert [(x.dtype.name, int(x.numpy().astype(int).sum())) for x, _ in ds] == \
        IMG_CROP_NEAREST


def test_directory_errors_are_keras_s(tree):
    make = ef.utils.text_dataset_from_directory
    with pytest.raises(ValueError, match="must provide a `seed`"):
        make(os.path.join(tree, "txt"), validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="exactly 2"):
        make(os.path.join(tree, "txt", "a"), label_mode="binary", verbose=False)
    with pytest.raises(ValueError, match="did not match"):
        make(os.path.join(tree, "txt"), class_names=["a", "z"], verbose=False)
    with pytest.raises(ef.errors.NotFoundError, match="nowhere"):
        make(os.path.join(tree, "nowhere"))
    with pytest.raises(ValueError, match="channels-last"):
        ef.utils.image_dataset_from_directory(os.path.join(tree, "img"),
                                              data_format="channels_first")


def test_timeseries_windows_as_keras():
    ds = ef.utils.timeseries_dataset_from_array(
        np.arange(20).reshape(10, 2), np.arange(10) * 10, sequence_length=3,
        sequence_stride=2, sampling_rate=2, batch_size=2, start_index=1, end_index=9)
    assert [(x.numpy().tolist(), y.numpy().tolist()) for x, y in ds] == TS
    ds = ef.utils.timeseries_dataset_from_array(np.arange(30), None, sequence_length=4,
                                                shuffle=True, seed=5, batch_size=None,
                                                sequence_stride=3)
    assert sorted(x.numpy().tolist() for x in ds) == TS_SHUFFLED_SET
    with pytest.raises(ValueError, match="sampling_rate"):
        ef.utils.timeseries_dataset_from_array(np.arange(5), None, 2, sampling_rate=5)


def test_split_dataset_as_keras():
    left, right = ef.utils.split_dataset((np.arange(10), np.arange(10) * 2), left_size=0.7,
                                         shuffle=True, seed=5)
    assert [(int(a), int(b)) for a, b in left] == SPLIT_LEFT
    assert [(int(a), int(b)) for a, b in right] == SPLIT_RIGHT
    batched = ef.data.Dataset.from_tensor_slices({"a": np.arange(10)}).batch(3)
    left, right = ef.utils.split_dataset(batched, right_size=4)
    assert [e["a"].numpy().tolist() for e in right] == [[6, 7, 8], [9]]
    with pytest.raises(ValueError, match="At least one"):
        ef.utils.split_dataset(np.arange(4))
    with pytest.raises(ValueError, match="greater than 1"):
        ef.utils.split_dataset(np.arange(4), left_size=0.6, right_size=0.6)
