"""Masks attached to tensors."""

import gc

import eagerflow as ef
from eagerflow.layers import masking


def test_masks_follow_tensors_and_are_dropped_with_them():
    x = ef.ones([2, 3])
    mask = ef.constant([[True, False, True]] * 2)
    masking.set_mask(x, mask)
    assert masking.get_mask(x) is mask
    assert masking.get_masks([x, ef.ones([1])]) == [mask, None]
    assert masking.get_masks([ef.ones([1])]) is None
    key = id(x)
    del x
    gc.collect()
    assert key not in masking._masks
    y = ef.ones([1])
    masking.set_mask(y, mask)
    masking.set_mask(y, None)
    assert masking.get_mask(y) is None


def test_set_masks_on_structures():
    a, b = ef.ones([1]), ef.ones([1])
    mask = ef.constant([True])
    masking.set_masks([a, b], [mask, None])
    assert masking.get_mask(a) is mask and masking.get_mask(b) is None
    masking.set_masks([a, b], mask)
    assert masking.get_mask(b) is mask
    masking.set_masks(a, None)
    assert masking.get_mask(a) is mask


def test_layers_that_support_masking_pass_it_on():
    ids = ef.constant([[1, 0]])
    embedded = ef.layers.Embedding(3, 2, mask_zero=True)(ids)
    dense = ef.layers.Dense(2)(embedded)
    assert masking.get_mask(dense).numpy().tolist() == [[True, False]]
    flat = ef.layers.Flatten()(embedded)
    assert masking.get_mask(flat) is None
