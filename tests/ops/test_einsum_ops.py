"""einsum: forward against numpy.einsum (incl. random equations), gradients, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


def row(equation, *shapes, order=2):
    return OpCase(f"einsum[{equation}]", lambda *xs: ef.einsum(equation, *xs),
                  lambda *xs: np.einsum(equation, *xs), shapes=list(shapes), order=order)


CASES = [
    row("ij,jk->ik", (2, 3), (3, 4)),
    row("bij,bjk", (2, 2, 3), (2, 3, 2)),
    row("...ij,...jk->...ik", (2, 1, 2, 3), (4, 3, 2)),
    row("ij,ij->ij", (1, 3), (2, 3)),
    row("ii", (3, 3)),
    row("ii->i", (3, 3)),
    row("iij->ji", (2, 2, 3)),
    row("ij->", (2, 3)),
    row("ij->j", (2, 3)),
    row("i,j", (2,), (3,)),
    row("ijk,ikl,lm->jm", (2, 3, 2), (2, 2, 3), (3, 2)),
    row(",i->i", (), (3,)),
    row("bA", (2, 3)),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


@st.composite
def equations(draw):
    """A random equation NumPy accepts, with operand shapes."""
    letters = "abcdE"
    sizes = {c: draw(st.integers(1, 3)) for c in letters}
    count = draw(st.integers(1, 3))
    terms = [draw(st.lists(st.sampled_from(letters), max_size=4)) for _ in range(count)]
    dots = draw(st.booleans())
    ellipsis = draw(st.lists(st.integers(1, 2), max_size=2)) if dots else []
    shapes = []
    for k, term in enumerate(terms):
        # Each operand takes a suffix of the ellipsis dims, some of them broadcast to 1.
        own = ellipsis[len(ellipsis) - draw(st.integers(0, len(ellipsis))):] if dots else []
        own = [n if draw(st.booleans()) else 1 for n in own]
        shapes.append(tuple(own) + tuple(sizes[c] for c in term))
        terms[k] = ("..." if dots else "") + "".join(term)
    seen = sorted(set("".join(terms)) - {"."})
    if draw(st.booleans()):
        return ",".join(terms), shapes
    output = draw(st.permutations(seen)).__iter__()
    chosen = "".join(c for c in output if draw(st.booleans()))
    return ",".join(terms) + "->" + ("..." if dots else "") + chosen, shapes


@settings(max_examples=150, deadline=None)
@given(equations())
def test_matches_numpy_einsum_property(spec):
    equation, shapes = spec
    rng = np.random.default_rng(0)
    operands = [rng.standard_normal(s) for s in shapes]
    want = np.einsum(equation, *operands)
    got = ef.einsum(equation, *operands)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(equations())
def test_gradients_of_random_equations(spec):
    equation, shapes = spec
    rng = np.random.default_rng(1)
    operands = [rng.standard_normal(s) for s in shapes]
    ef.testing.check_gradients(lambda *xs: ef.einsum(equation, *xs), *operands, order=1)


def test_spaces_and_linalg_alias():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(ef.einsum(" i j -> j ", x).numpy(), x.sum(0))
    assert ef.linalg.einsum is ef.einsum


@pytest.mark.parametrize("call, match", [
    (lambda: ef.einsum("ij,jk->ik", ef.ones([2, 3])), "has 2 input terms but 1 operands"),
    (lambda: ef.einsum("i1->i", ef.ones([2, 3])), "invalid subscript '1'"),
    (lambda: ef.einsum("i..j", ef.ones([2, 3])), "invalid subscript '.'"),
    (lambda: ef.einsum("ij->i->j", ef.ones([2, 3])), "more than one '->'"),
    (lambda: ef.einsum("ijk", ef.ones([2, 3])),
     r"term 'ijk' has 3 subscripts but its operand has shape \(2, 3\)"),
    (lambda: ef.einsum("...ijk", ef.ones([2, 3])), r"fewer than the 3 subscripts"),
    (lambda: ef.einsum("ij,jk", ef.ones([2, 3]), ef.ones([4, 2])),
     r"size of subscript 'j' differs between operands .*: 3 vs. 4"),
    (lambda: ef.einsum("ij->ik", ef.ones([2, 3])), "output subscript 'k' .* appears in no input"),
    (lambda: ef.einsum("ij->ii", ef.ones([2, 3])), "output subscript 'i' appears more than once"),
    (lambda: ef.einsum("...i->i", ef.ones([2, 3])), r"the output needs '\.\.\.'"),
    (lambda: ef.einsum("i"), "needs at least one operand"),
])
def test_errors(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()


def test_type_errors():
    with pytest.raises(TypeError, match="equation must be a string"):
        ef.einsum(["ij"], ef.ones([2, 2]))
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['axis'\]"):
        ef.einsum("ij", ef.ones([2, 2]), axis=0)
