"""`ef.TensorShape`: TensorFlow's shape class, for code that builds and reasons about shapes.

In eagerflow every shape is a plain tuple of ints, with None for a size not known yet:
`Tensor.shape`, `Variable.shape`, the shapes of symbolic tensors (traced or functional),
`TensorSpec.shape`, the `input_shape` a layer's `build` receives and what
`compute_output_shape` returns, as in Keras 3. `TensorShape` is TensorFlow's class for the
programs that write it: a tuple subclass, so it equals, hashes, unpacks and indexes as
the tuple of its dimensions (``ef.TensorShape([None, 3]) == (None, 3)``) and goes
wherever a shape does, with TensorFlow's methods (`as_list`, `rank`, `is_fully_defined`,
`num_elements`, `is_compatible_with`, `merge_with`, `concatenate`, ...). Wrap a tensor's
shape to use them: ``ef.TensorShape(x.shape).as_list()``, or write ``list(x.shape)``.

What differs from TensorFlow's class: dimensions are ints or None (no `Dimension`
objects: `dims` is the list of them), slicing gives a tuple, ``bool()`` of a scalar shape
``()`` is False as for any empty tuple, and the repr is TensorFlow's
(``TensorShape([None, 3])``) while `str` gives the tuple's ``(None, 3)``. The guide
"Keras and TensorFlow compatibility" explains why `.shape` stays a tuple.

Examples:
    >>> import eagerflow as ef
    >>> shape = ef.TensorShape([None, 3])
    >>> shape.as_list(), shape.rank, shape.is_fully_defined()
    ([None, 3], 2, False)
    >>> shape.is_compatible_with(ef.zeros([5, 3]).shape)
    True
    >>> shape.merge_with((5, None))
    TensorShape([5, 3])
    >>> ef.TensorShape(ef.zeros([2, 4]).shape).num_elements()
    8
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Iterator
from typing import Any, SupportsIndex

ShapeLike = Iterable[SupportsIndex | None] | SupportsIndex | None


def _dimension(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) or not hasattr(value, "__index__"):
        raise TypeError(
            f"TensorShape: a dimension must be an int or None, got {value!r} of type "
            f"{type(value).__name__}")
    size = operator.index(value)
    if size < 0:
        raise ValueError(f"TensorShape: dimension {size} must be >= 0 (None for unknown)")
    return size


class TensorShape(tuple):
    """The shape of a tensor: a tuple of ints and None, with TensorFlow's methods.

    Args:
        dims: the dimensions (a shape, list or tuple of ints and None, another
            `TensorShape`), a single int for a 1-D shape, or None for an unknown rank.

    Raises:
        TypeError: for a dimension that is not an int or None.
        ValueError: for a negative dimension.

    Examples:
        >>> import eagerflow as ef
        >>> ef.TensorShape([2, 3]) == (2, 3)
        True
        >>> ef.TensorShape([None, 3]).concatenate([4])
        TensorShape([None, 3, 4])
        >>> ef.TensorShape(None).rank is None
        True
    """

    _unknown_rank: bool

    def __new__(cls, dims: ShapeLike = None) -> TensorShape:
        if isinstance(dims, TensorShape) and dims._unknown_rank:
            dims = None
        unknown = dims is None
        if unknown:
            items: tuple = ()
        elif hasattr(dims, "__index__") and getattr(dims, "ndim", 0) == 0:  # one int
            items = (_dimension(dims),)
        elif isinstance(dims, Iterable):
            items = tuple(_dimension(d) for d in dims)
        else:
            raise TypeError(
                f"TensorShape: expected a list of dimensions, an int or None, got {dims!r} "
                f"of type {type(dims).__name__}")
        shape = super().__new__(cls, items)
        shape._unknown_rank = unknown
        return shape

    # -- what a shape is -------------------------------------------------------------
    @property
    def rank(self) -> int | None:
        """The number of dimensions, or None when the rank is unknown."""
        return None if self._unknown_rank else len(self)

    @property
    def ndims(self) -> int | None:
        """The rank (TensorFlow's older name)."""
        return self.rank

    @property
    def dims(self) -> list[int | None] | None:
        """The dimensions as a list (ints and None), or None for an unknown rank."""
        return None if self._unknown_rank else list(self)

    def as_list(self) -> list[int | None]:
        """The dimensions as a list of ints and None.

        Raises:
            ValueError: when the rank is unknown.
        """
        if self._unknown_rank:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self)

    def is_fully_defined(self) -> bool:
        """Whether the rank and every dimension are known."""
        return not self._unknown_rank and None not in self

    def assert_is_fully_defined(self) -> None:
        """Raises ValueError unless `is_fully_defined()`."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def num_elements(self) -> int | None:
        """The number of elements (1 for a scalar), or None when a dimension is unknown."""
        return math.prod(self) if self.is_fully_defined() else None

    # -- comparing and combining -------------------------------------------------------
    def is_compatible_with(self, other: ShapeLike) -> bool:
        """Whether `other` could be the same shape: same rank (or one unknown), and
        equal sizes wherever both are known."""
        other = TensorShape(other)
        if self._unknown_rank or other._unknown_rank:
            return True
        return len(self) == len(other) and all(
            a is None or b is None or a == b for a, b in zip(self, other, strict=True))

    def assert_is_compatible_with(self, other: ShapeLike) -> None:
        """Raises ValueError unless `is_compatible_with(other)`."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other: ShapeLike) -> TensorShape:
        """The shape both `self` and `other` describe: each known size from either.

        Raises:
            ValueError: when the shapes are not compatible.
        """
        other = TensorShape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self._unknown_rank:
            return other
        if other._unknown_rank:
            return self
        return TensorShape([b if a is None else a for a, b in zip(self, other, strict=True)])

    def most_specific_compatible_shape(self, other: ShapeLike) -> TensorShape:
        """The most specific shape compatible with both: None where they differ, an
        unknown rank when their ranks differ."""
        other = TensorShape(other)
        if self._unknown_rank or other._unknown_rank or len(self) != len(other):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self, other, strict=True)])

    def concatenate(self, other: ShapeLike) -> TensorShape:
        """`self`'s dimensions followed by `other`'s (an unknown rank if either's is)."""
        other = TensorShape(other)
        if self._unknown_rank or other._unknown_rank:
            return TensorShape(None)
        return TensorShape((*self, *other))

    def with_rank(self, rank: int) -> TensorShape:
        """This shape, checked to have `rank` dimensions (an unknown rank becomes `rank`
        unknown dimensions).

        Raises:
            ValueError: when the rank is known and differs.
        """
        if self._unknown_rank:
            return TensorShape([None] * rank)
        self.assert_has_rank(rank)
        return self

    def assert_has_rank(self, rank: int) -> None:
        """Raises ValueError when the rank is known and not `rank`."""
        if not self._unknown_rank and len(self) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    # -- Python protocol ----------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        # TensorFlow compares with lists too; an unknown rank equals only an unknown rank.
        other_unknown = isinstance(other, TensorShape) and other._unknown_rank
        if self._unknown_rank or other_unknown:
            return self._unknown_rank and other_unknown
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def __bool__(self) -> bool:
        return not self._unknown_rank and tuple.__len__(self) > 0

    def __len__(self) -> int:
        if self._unknown_rank:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return tuple.__len__(self)

    def __iter__(self) -> Iterator[int | None]:
        if self._unknown_rank:  # (not as the empty shape of a scalar)
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return tuple.__iter__(self)

    def __reduce__(self) -> tuple:
        return TensorShape, (None if self._unknown_rank else tuple(self),)

    def __repr__(self) -> str:
        return "TensorShape(None)" if self._unknown_rank else f"TensorShape({list(self)})"

    def __str__(self) -> str:
        return "<unknown>" if self._unknown_rank else tuple.__repr__(self)
