"""InputSpec checks."""

import pytest

import eagerflow as ef
from eagerflow.layers.input_spec import InputSpec, assert_input_compatibility


def test_input_spec_checks():
    x = ef.ones([2, 3])
    assert_input_compatibility(InputSpec(ndim=2, axes={-1: 3}), x, "l")
    assert_input_compatibility([InputSpec(min_ndim=1), None], [x, x], "l")
    with pytest.raises(ValueError, match="Input 0 of layer 'l'.*expected ndim=3, found ndim=2"):
        assert_input_compatibility(InputSpec(ndim=3), x, "l")
    with pytest.raises(ValueError, match="expected min_ndim=3"):
        assert_input_compatibility(InputSpec(min_ndim=3), x, "l")
    with pytest.raises(ValueError, match="expected max_ndim=1"):
        assert_input_compatibility(InputSpec(max_ndim=1), x, "l")
    with pytest.raises(ValueError, match="expected an axis 4"):
        assert_input_compatibility(InputSpec(axes={4: 1}), x, "l")
    with pytest.raises(ValueError, match=r"expected shape=\(None, 4\), found shape=\(2, 3\)"):
        assert_input_compatibility(InputSpec(shape=(None, 4)), x, "l")
    with pytest.raises(ValueError, match="expects 2 input.s., but it received 1"):
        assert_input_compatibility([InputSpec(), InputSpec()], x, "l")


def test_input_spec_repr_and_config():
    spec = InputSpec(ndim=4, axes={-1: 3})
    assert repr(spec) == "InputSpec(ndim=4, axes={-1: 3})"
    assert spec.get_config()["axes"] == {-1: 3}
