"""Datasets of files in class subdirectories: `text_dataset_from_directory` and
`image_dataset_from_directory` (Keras's ``keras.utils`` functions, also `ef.utils`).

Files are listed and split exactly as Keras 3 lists and splits them: subdirectories in
sorted order (one class each, hidden ones skipped), files sorted within them, then
shuffled with NumPy's ``RandomState(seed)``; `validation_split` keeps the last fraction
for validation. So with the same `seed`, the training and validation subsets hold the same
files as Keras's. The order of the batches then comes from eagerflow's own shuffle, which
differs from tf.data's.

Examples:
    >>> import os, tempfile, eagerflow as ef
    >>> root = tempfile.mkdtemp()
    >>> for label, text in [("neg", "dull"), ("pos", "great")]:
    ...     os.makedirs(os.path.join(root, label))
    ...     with open(os.path.join(root, label, "a.txt"), "w") as f:
    ...         _ = f.write(text)
    >>> ds = ef.utils.text_dataset_from_directory(root, shuffle=False, verbose=False)
    >>> ds.class_names
    ['neg', 'pos']
    >>> [(t.numpy().tolist(), y.numpy().tolist()) for t, y in ds]
    [([b'dull', b'great'], [0, 1])]
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from eagerflow import backend
from eagerflow.core import errors
from eagerflow.core import tensor as tensor_lib
from eagerflow.data import dataset
from eagerflow.ops import image_ops

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_COLOR_MODES = {"grayscale": ("L", 1), "rgb": ("RGB", 3), "rgba": ("RGBA", 4)}


def _check_labels(labels, label_mode, class_names) -> None:
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(
                "`labels` argument should be a list/tuple of integer labels, of the same size "
                "as the number of files in the target directory. If you wish to infer the "
                "labels from the subdirectory names in the target directory, pass "
                '`labels="inferred"`. If you wish to get a dataset that only contains the '
                f"samples (no labels), pass `labels=None`. Received: labels={labels}")
        if class_names:
            raise ValueError('You can only pass `class_names` if `labels="inferred"`. '
                             f"Received: labels={labels}, and class_names={class_names}")
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError('`label_mode` argument must be one of "int", "categorical", '
                         f'"binary", or None. Received: label_mode={label_mode}')


def _check_split(validation_split, subset, shuffle, seed) -> None:
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: "
                         f"{validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError('`subset` must be either "training", "validation" or "both", '
                         f"received: {subset}")
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide "
                         "a `seed` argument, to make sure that there is no overlap between the "
                         "training and validation subset.")


def index_directory(directory: str, labels: Any, formats: tuple, class_names: Any = None,
                    shuffle: bool = True, seed: int | None = None, follow_links: bool = False,
                    verbose: bool = True) -> tuple[list, Any, Any]:
    """The file paths under `directory` with one of `formats`, their labels and the class
    names, listed and shuffled as Keras 3 lists them.

    Raises:
        NotFoundError: if `directory` is not a directory.
        ValueError: for `class_names` that are not subdirectories, or labels of another
            length than the files.
    """
    if not os.path.isdir(directory):
        raise errors.NotFoundError(f"Could not find directory {directory}")
    if labels == "inferred":
        subdirs = [name for name in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, name)) and not name.startswith(".")]
        if class_names is not None:
            if not set(class_names).issubset(set(subdirs)):
                raise ValueError(
                    "The `class_names` passed did not match the names of the subdirectories "
                    f"of the target directory. Expected: {subdirs} (or a subset of it), but "
                    f"received: class_names={class_names}")
            subdirs = list(class_names)  # in the order given
    else:
        if class_names is not None:
            raise ValueError("When `labels=None` (no labels), argument `class_names` cannot be "
                             "specified." if labels is None else
                             "When argument `labels` is specified, argument `class_names` "
                             "cannot be specified (the `class_names` will be the sorted list "
                             "of labels).")
        subdirs = [""]
    paths, found = [], []
    for index, subdir in enumerate(subdirs):
        top = os.path.join(directory, subdir)
        walk = sorted(os.walk(top, followlinks=follow_links), key=lambda entry: entry[0])
        for root, _, files in walk:
            for name in sorted(files):
                if name.lower().endswith(formats):
                    paths.append(os.path.join(root, name))
                    found.append(index)
    if labels == "inferred":
        label_array: Any = np.array(found, dtype="int32")
        names: Any = subdirs
    elif labels is None:
        label_array, names = None, None
    else:
        if len(labels) != len(paths):
            raise ValueError(
                "Expected the lengths of `labels` to match the number of files in the target "
                f"directory. len(labels) is {len(labels)} while we found {len(paths)} files in "
                f"directory {directory}.")
        label_array = np.asarray(labels)
        names = [str(label) for label in sorted(set(labels))]
    if verbose:
        print(f"Found {len(paths)} files." if label_array is None else
              f"Found {len(paths)} files belonging to {len(names)} classes.")
    if shuffle:
        if seed is None:
            seed = int(np.random.randint(int(1e6)))
        np.random.RandomState(seed).shuffle(paths)
        if label_array is not None:
            np.random.RandomState(seed).shuffle(label_array)
    return paths, label_array, names


def _subset(paths, labels, validation_split, subset, verbose):
    if not validation_split:
        return paths, labels
    count = int(validation_split * len(paths))
    if subset == "training":
        if verbose:
            print(f"Using {len(paths) - count} files for training.")
        return paths[:-count], None if labels is None else labels[:-count]
    if verbose:
        print(f"Using {count} files for validation.")
    return paths[-count:], None if labels is None else labels[-count:]


def _label_values(labels, label_mode, num_classes) -> np.ndarray:
    if label_mode == "binary":
        return np.asarray(labels, np.float32)[:, None]
    if label_mode == "categorical":  # tf.one_hot: float32 rows
        return np.eye(num_classes, dtype=np.float32)[np.asarray(labels, np.int64)]
    return np.asarray(labels)


def _build(paths, labels, label_mode, num_classes, load, batch_size, shuffle, seed,
           class_names):
    """The dataset of loaded files (and labels), shuffled and batched as Keras's."""
    indices = dataset.Dataset.from_tensor_slices(np.arange(len(paths), dtype=np.int64))
    if shuffle:
        indices = indices.shuffle(1024 if batch_size is None else batch_size * 8, seed=seed)
    label_values = None if label_mode is None else _label_values(labels, label_mode,
                                                                   num_classes)

    def element(index):
        i = int(index.numpy())
        sample = load(paths[i])
        if label_values is None:
            return sample
        return sample, tensor_lib.new_tensor(np.asarray(label_values[i]))

    result = indices.map(element)
    if batch_size is not None:
        result = result.batch(batch_size)
    result.class_names = class_names  # type: ignore[attr-defined]
    result.file_paths = list(paths)  # type: ignore[attr-defined]
    return result


def _from_directory(kind, directory, labels, label_mode, class_names, batch_size, shuffle, seed,
                    validation_split, subset, follow_links, verbose, formats, load):
    _check_labels(labels, label_mode, class_names)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    _check_split(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = int(np.random.randint(int(1e6)))
    paths, label_array, names = index_directory(directory, labels, formats, class_names,
                                                shuffle, seed, follow_links, verbose)
    if label_mode == "binary" and len(names) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 '
                         f"class_names. Received: class_names={names}")
    num_classes = len(names) if names else 0
    allowed = "Allowed format: .txt" if kind == "text" else f"Allowed formats: {formats}"
    if subset == "both":
        parts = []
        for which in ("training", "validation"):
            part_paths, part_labels = _subset(paths, label_array, validation_split, which,
                                              verbose)
            if not part_paths:
                raise ValueError(f"No {which} {kind} files found in directory {directory}. "
                                 f"{allowed}")
            parts.append(_build(part_paths, part_labels, label_mode, num_classes, load,
                                batch_size, shuffle and which == "training", seed, names))
        return parts
    paths, label_array = _subset(paths, label_array, validation_split, subset, verbose)
    if not paths:
        raise ValueError(f"No {kind} files found in directory {directory}. {allowed}")
    return _build(paths, label_array, label_mode, num_classes, load, batch_size, shuffle, seed,
                  names)


def text_dataset_from_directory(directory: str, labels: Any = "inferred",
                                label_mode: str | None = "int", class_names: Any = None,
                                batch_size: int | None = 32, max_length: int | None = None,
                                shuffle: bool = True, seed: int | None = None,
                                validation_split: float | None = None, subset: str | None = None,
                                follow_links: bool = False, verbose: bool = True) -> Any:
    """A dataset of the ``.txt`` files under `directory`, labelled by subdirectory.

    As Keras 3's function: each text is a bytes scalar (the file's bytes, cut to
    `max_length` bytes when given); labels are int32 class indices (``"int"``), one-hot
    float32 vectors (``"categorical"``) or float32 ``(1,)`` values (``"binary"``). The
    returned dataset has ``class_names``; with ``subset="both"`` a list of the training
    and validation datasets is returned.

    Args:
        directory: a directory with one subdirectory per class (``labels="inferred"``).
        labels: ``"inferred"``, None (texts alone), or a list of labels, one per file in
            sorted path order.
        label_mode: ``"int"``, ``"categorical"``, ``"binary"`` or None.
        class_names: the subdirectories to use, in this order (default: all, sorted).
        batch_size: texts per batch, or None for unbatched elements.
        max_length: the most bytes kept of each text.
        shuffle, seed: shuffle the files (with `seed`; required with `validation_split`).
        validation_split, subset: keep the last `validation_split` of the files for
            ``"validation"``, the rest for ``"training"``, or both.
        follow_links: descend into symbolic links to directories.
        verbose: print how many files were found.

    Raises:
        ValueError: for Keras's invalid combinations (with Keras's messages), or no files.
        NotFoundError: if `directory` does not exist.
    """
    if max_length is not None and (not isinstance(max_length, int) or max_length < 0):
        raise ValueError(f"`max_length` must be a non-negative int or None. Received: "
                         f"max_length={max_length!r}")

    def load(path):
        with open(path, "rb") as f:
            content = f.read() if max_length is None else f.read(max_length)
        return tensor_lib.Tensor(content)  # a scalar ef.string (bytes, as TF gives)

    return _from_directory("text", directory, labels, label_mode, class_names, batch_size,
                           shuffle, seed, validation_split, subset, follow_links, verbose,
                           (".txt",), load)


def image_dataset_from_directory(directory: str, labels: Any = "inferred",
                                 label_mode: str | None = "int", class_names: Any = None,
                                 color_mode: str = "rgb", batch_size: int | None = 32,
                                 image_size: Any = (256, 256), shuffle: bool = True,
                                 seed: int | None = None, validation_split: float | None = None,
                                 subset: str | None = None, interpolation: str = "bilinear",
                                 follow_links: bool = False, crop_to_aspect_ratio: bool = False,
                                 pad_to_aspect_ratio: bool = False, data_format: str | None = None,
                                 verbose: bool = True) -> Any:
    """A dataset of the images (bmp, gif, jpeg, png) under `directory`, labelled by
    subdirectory, resized to `image_size`.

    As Keras 3's function: images are ``(height, width, channels)`` arrays with values in
    [0, 255], float32 (uint8 with ``interpolation="nearest"``), decoded with Pillow
    (``pip install 'eagerflow[plot]'``; the first frame of an animated GIF) and resized
    with ``ef.image.resize`` (optionally cropped or padded to the target aspect ratio
    first); labels as in `text_dataset_from_directory`. One documented difference:
    ``color_mode="grayscale"`` turns color files gray with Pillow's ITU-R 601 luma, which
    differs from TensorFlow's decoders by 1 (of 255) on a few pixels in a thousand.

    Args:
        directory: a directory with one subdirectory per class (as in
            `text_dataset_from_directory`, as are `labels`, `label_mode`, `class_names`,
            `batch_size`, `shuffle`, `seed`, `validation_split`, `subset`, `follow_links`
            and `verbose`).
        color_mode: ``"grayscale"``, ``"rgb"`` or ``"rgba"`` (1, 3 or 4 channels).
        image_size: ``(height, width)``, or an int for a square.
        interpolation: a method of ``ef.image.resize``.
        crop_to_aspect_ratio: crop the largest centred window of the target aspect ratio
            before resizing.
        pad_to_aspect_ratio: resize to fit inside `image_size` keeping the aspect ratio, then
            pad evenly with zeros (``tf.image.resize_with_pad``).
        data_format: None or ``"channels_last"`` (the only layout eagerflow's image layers
            take).

    Raises:
        ValueError: for a bad color mode, size, interpolation or data format, both aspect
            options, or Keras's invalid label and split combinations.
        NotFoundError: if `directory` does not exist.
    """
    if color_mode not in _COLOR_MODES:
        raise ValueError('`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
                         f"Received: color_mode={color_mode}")
    mode, channels = _COLOR_MODES[color_mode]
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    elif not isinstance(image_size, (list, tuple)) or len(image_size) != 2:
        raise ValueError("Invalid `image_size` value. Expected a tuple of 2 integers. "
                         f"Received: image_size={image_size}")
    height, width = int(image_size[0]), int(image_size[1])
    interpolation = interpolation.lower()
    if interpolation not in image_ops.RESIZE_METHODS:
        raise ValueError(f"Argument `interpolation` should be one of "
                         f"{image_ops.RESIZE_METHODS}. Received: interpolation={interpolation}")
    if (data_format or backend.image_data_format()) != "channels_last":
        raise ValueError("image_dataset_from_directory: eagerflow's image layers take "
                         f"channels-last images only. Received: data_format={data_format}")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set "
                         "to `True`.")
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("image_dataset_from_directory needs Pillow to decode images: "
                          "pip install 'eagerflow[plot]'") from e

    def load(path):
        with Image.open(path) as opened:
            opened.seek(0)
            pixels = np.asarray(opened.convert(mode))  # uint8, as tf.image.decode_image
        if pixels.ndim == 2:
            pixels = pixels[:, :, None]
        if crop_to_aspect_ratio:
            pixels = image_ops.crop_to_aspect_ratio(pixels[None], height, width)[0]
        elif pad_to_aspect_ratio:
            # tf.image.resize_with_pad: resize to fit inside, then pad evenly with zeros.
            rows, cols = pixels.shape[0], pixels.shape[1]
            ratio = max(cols / width, rows / height)
            fit_h, fit_w = int(np.floor(rows / ratio)), int(np.floor(cols / ratio))
            top = max(0, int(np.floor((height - rows / ratio) / 2)))
            left = max(0, int(np.floor((width - cols / ratio) / 2)))
            fitted = image_ops.resize(tensor_lib.new_tensor(pixels), [fit_h, fit_w],
                                      method=interpolation).numpy()
            padded = np.zeros((height, width, pixels.shape[2]), fitted.dtype)
            padded[top:top + fit_h, left:left + fit_w] = fitted
            return tensor_lib.new_tensor(padded)
        return image_ops.resize(tensor_lib.new_tensor(pixels), [height, width],
                                method=interpolation)

    return _from_directory("image", directory, labels, label_mode, class_names, batch_size,
                           shuffle, seed, validation_split, subset, follow_links, verbose,
                           IMAGE_FORMATS, load)
