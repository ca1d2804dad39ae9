"""Intermediate results a forward pass saves for its gradient, weakly keyed by an array.

Some gradients need a result the forward pass computed anyway: a convolution's filter
gradient needs the im2col matrix (rebuilding it costs ~1 ms for a (64, 14, 14, 32)
input), a max pool's gradient the position of each window's maximum. While a tape is
recording, the forward pass `remember`s such a result under the identity of one of its
arrays (the conv input, the pool output) and the gradient `take`s it back:

* an entry holds only a weak reference to its array and is dropped as soon as the array
  is freed, so saved results never outlive the tape record (or user reference) keeping
  the array alive;
* the total size is capped (`CAP_BYTES`); the oldest entries go first, and a miss makes
  the gradient recompute the result, so values never depend on the cache;
* tensors are immutable, so an array seen again still holds the same values; the key
  also carries the geometry, so a different use of the same array never matches.

An `ef.function` plan records no tape, so it asks explicitly: `pair` declares which
gradient op takes what which forward op remembers, and `producers_to_save` finds, in a
compiled program, the forward nodes whose result a later node of the same program takes.
The executor runs those with ``save_for_gradient=True``. Only exact pairs are marked (same
array, same geometry, all shapes known), so every marked entry is taken by its consumer in
the same run, before the graph could reuse the array's buffer for something else.

Examples:
    >>> import numpy as np
    >>> from eagerflow.ops.kernels import saved
    >>> x = np.ones(4)
    >>> saved.remember(x, ("double",), x * 2)
    >>> saved.take(x, ("double",))
    array([2., 2., 2., 2.])
    >>> print(saved.take(x, ("double",)))  # taken: gone
    None
"""

from __future__ import annotations

import collections
import functools
import threading
import weakref

import numpy as np

CAP_BYTES = 64 << 20
_entries: collections.OrderedDict = collections.OrderedDict()  # (id, tag) -> (ref, key, value)
_lock = threading.Lock()
_size = [0]
# consumer op type -> [(producer op type, consumer's keyed tensor, producer's, matches)]
_pairs: dict = {}
_producer_keys: dict = {}  # producer op type -> its keyed-tensor functions, one per pair


def _forget(slot, ref):
    with _lock:
        entry = _entries.get(slot)
        if entry is not None and entry[0] is ref:
            del _entries[slot]
            _size[0] -= entry[2].nbytes


def remember(array: np.ndarray, key: tuple, value: np.ndarray) -> None:
    """Keeps `value`, computed from `array` with parameters `key`, for a later `take`.

    Args:
        array: the array whose identity (and lifetime) the entry follows.
        key: a hashable description of how `value` was computed; ``key[0]`` names the
            kind of result, so different kinds saved for one array do not collide.
        value: the result to keep.
    """
    if value.nbytes > CAP_BYTES:
        return
    slot = (id(array), key[0])
    ref = weakref.ref(array, functools.partial(_forget, slot))
    with _lock:
        old = _entries.pop(slot, None)
        if old is not None:
            _size[0] -= old[2].nbytes
        _entries[slot] = (ref, key, value)
        _size[0] += value.nbytes
        while _size[0] > CAP_BYTES:
            _, (_, _, evicted) = _entries.popitem(last=False)
            _size[0] -= evicted.nbytes


def take(array: np.ndarray, key: tuple):
    """The value `remember`ed for `array` and `key` (removing it), or None.

    Args:
        array: the array the value was saved under.
        key: the same key `remember` got.

    Returns:
        The saved value, or None when there is none (never saved, evicted, or taken).
    """
    slot = (id(array), key[0])
    with _lock:
        entry = _entries.get(slot)
        if entry is None or entry[0]() is not array or entry[1] != key:
            return None
        del _entries[slot]
        _size[0] -= entry[2].nbytes
        return entry[2]


def pair(consumer: str, producer: str, consumer_key, producer_key, matches) -> None:
    """Declares that ops of type `consumer` take what ops of type `producer` remember.

    Args:
        consumer, producer: op type names.
        consumer_key, producer_key: ``node -> graph tensor``, the array the entry is keyed
            by, as each node sees it.
        matches: ``(producer_node, consumer_node) -> bool``, true only when the consumer
            will surely take the producer's entry (same key, all shapes known).
    """
    _pairs.setdefault(consumer, []).append((producer, consumer_key, producer_key, matches))
    _producer_keys.setdefault(producer, []).append(producer_key)


def producers_to_save(nodes) -> set:
    """``id`` of each node in `nodes` (a straight-line program, in execution order) whose
    saved result a later node of `nodes` takes.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops.kernels import saved
        >>> def step(x):
        ...     with ef.GradientTape() as tape:
        ...         tape.watch(x)
        ...         y = ef.nn.max_pool2d(x, 2, 2, "VALID")
        ...     return tape.gradient(y, x)
        >>> cf = ef.function(step).get_concrete_function(ef.TensorSpec([1, 4, 4, 1]))
        >>> [n.type for n in cf.graph.nodes if id(n) in saved.producers_to_save(cf.graph.nodes)]
        ['MaxPool']
    """
    earlier: dict = {}  # (producer_key, id(keyed tensor)) -> producer nodes seen so far
    marked: set = set()
    for node in nodes:
        for _, consumer_key, producer_key, matches in _pairs.get(node.type, ()):
            for producer in earlier.get((producer_key, id(consumer_key(node))), ()):
                if matches(producer, node):
                    marked.add(id(producer))
        for producer_key in _producer_keys.get(node.type, ()):
            earlier.setdefault((producer_key, id(producer_key(node))), []).append(node)
    return marked
