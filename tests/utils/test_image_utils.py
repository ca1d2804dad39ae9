"""ef.utils image helpers: array_to_img / img_to_array / save_img / load_img."""

import builtins
import os

import numpy as np
import pytest

import eagerflow as ef


def test_round_trip_of_an_rgb_array_without_scaling():
    x = np.random.default_rng(0).integers(0, 256, (5, 7, 3)).astype("float32")
    img = ef.utils.array_to_img(x, scale=False)
    assert (img.size, img.mode) == ((7, 5), "RGB")
    np.testing.assert_array_equal(ef.utils.img_to_array(img), x)


def test_scaling_maps_min_to_0_and_max_to_255():
    x = ef.constant([[[-1.0], [0.0]], [[1.0], [3.0]]])
    back = ef.utils.img_to_array(ef.utils.array_to_img(x))
    np.testing.assert_array_equal(back[..., 0], [[0, 63], [127, 255]])


def test_channels_first_and_rgba():
    x = np.zeros((4, 2, 3), "float32")
    x[3] = 255
    img = ef.utils.array_to_img(x, data_format="channels_first", scale=False)
    assert (img.size, img.mode) == ((3, 2), "RGBA")
    assert ef.utils.img_to_array(img, data_format="channels_first").shape == (4, 2, 3)


@pytest.mark.parametrize("shape, match", [((4, 4), "rank 3"), ((4, 4, 2), "1, 3 or 4")])
def test_bad_shapes_are_refused(shape, match):
    with pytest.raises(ValueError, match=match):
        ef.utils.array_to_img(np.zeros(shape))


def test_values_outside_0_255_need_scaling():
    with pytest.raises(ValueError, match="scale=False needs values in 0-255"):
        ef.utils.array_to_img(np.full((2, 2, 1), 300.0), scale=False)
    with pytest.raises(ValueError, match="NaN"):
        ef.utils.array_to_img(np.full((2, 2, 1), np.nan))


def test_save_and_load(tmp_path):
    x = np.zeros((6, 8, 3), "float32")
    x[:, :4] = 255
    path = str(tmp_path / "img.png")
    ef.utils.save_img(path, x, scale=False)
    assert os.listdir(tmp_path) == ["img.png"]  # no temporary left
    img = ef.utils.load_img(path)
    np.testing.assert_array_equal(ef.utils.img_to_array(img), x)
    small = ef.utils.load_img(path, color_mode="grayscale", target_size=(3, 4))
    assert (small.size, small.mode) == ((4, 3), "L")
    ef.utils.save_img(str(tmp_path / "img.jpg"), np.ones((4, 4, 4)))  # alpha dropped
    with pytest.raises(ValueError, match="color_mode"):
        ef.utils.load_img(path, color_mode="cmyk")
    with pytest.raises(ValueError, match="no extension"):
        ef.utils.save_img(str(tmp_path / "noext"), x)


def test_missing_pillow_is_named(monkeypatch):
    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("No module named 'PIL'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    with pytest.raises(ImportError, match=r"array_to_img needs Pillow.*eagerflow\[plot\]"):
        ef.utils.array_to_img(np.zeros((2, 2, 3)))
