"""Slot variables: per-variable optimizer state (momentum, velocity, accumulators).

Slots are created lazily, the first time a variable is updated, or all at once by
`build(var_list)`. They are keyed by the identity of their variable (never by its name):
the optimizer keeps the variable alive, so its `id` cannot be reused. Each new slot is
announced through `Trackable._track_new_slot` so a deferred checkpoint restore can fill it
before the first update reads it; checkpoints reach slots through `_slot_variables()`.

Example:
    >>> import eagerflow as ef
    >>> w = ef.Variable([1.0, 2.0], name="w")
    >>> opt = ef.optim.Adam()
    >>> opt.build([w])
    >>> [(v.name, slot_name) for v, slot_name, _ in opt._slot_variables()]
    [('w', 'momentum'), ('w', 'velocity')]
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors, nest
from eagerflow.core.variable import Variable

__all__ = ["SlotsMixin"]


class SlotsMixin:
    """Slot creation, lookup and reset for `Optimizer`; subclasses set `_slot_names`."""

    def _init_slots(self) -> None:
        # id(variable) -> (variable, {slot name: slot}, slots in _slot_names order or None
        # before the variable is built). The entry holds the variable, so its id cannot be
        # reused while the optimizer lives.
        self._slots: dict[int, tuple] = {}
        self._slot_records: list[tuple] = []
        self._slot_initial: dict[str, float] = {}
        self._slot_names: list[str] = []

    def _create_slots(self, var) -> None:
        """Creates the slots of `var`; the default makes one zero slot per `_slot_names`."""
        for slot_name in self._slot_names:
            self.add_slot(var, slot_name)

    def add_slot(self, var, slot_name: str, initial_value: float = 0.0) -> Variable:
        """Creates (once) and returns slot `slot_name` of `var`, filled with `initial_value`.

        Example:
            >>> import eagerflow as ef
            >>> opt = ef.optim.SGD()
            >>> v = ef.Variable([1.0, 2.0])
            >>> opt.add_slot(v, "extra", 0.5).numpy()
            array([0.5, 0.5], dtype=float32)
        """
        entry = self._slots.get(id(var))
        if entry is None:
            entry = self._slots[id(var)] = (var, {}, None)
        if slot_name in entry[1]:
            return entry[1][slot_name]
        slot = Variable(np.full(var.shape, initial_value, dtype=var.dtype), trainable=False,
                        name=f"{var.name}/{slot_name}")
        entry[1][slot_name] = slot
        self._slot_records.append((var, slot_name, slot))
        self._slot_initial.setdefault(slot_name, initial_value)
        self._track_new_slot(var, slot_name, slot)
        return slot

    def _ensure_slots(self, var) -> tuple:
        """The slots of `var` in `_slot_names` order, created on first sight."""
        entry = self._slots.get(id(var))
        if entry is not None and entry[2] is not None:
            return entry[2]
        if var.dtype.kind != "f":
            raise errors.InvalidArgumentError(
                f"{type(self).__name__} can only update floating-point variables; variable "
                f"{var.name!r} has dtype {var.dtype.name}."
            )
        self._create_slots(var)
        by_name = self._slots[id(var)][1] if id(var) in self._slots else {}
        ordered = tuple(by_name[slot_name] for slot_name in self._slot_names)
        self._slots[id(var)] = (var, by_name, ordered)
        return ordered

    def build(self, var_list) -> None:
        """Creates the slots of every variable in `var_list` now (idempotent).

        `apply_gradients` does this for new variables on first use; calling it earlier makes
        the slots exist before a checkpoint is restored or saved.

        Example:
            >>> import eagerflow as ef
            >>> opt = ef.optim.Adam()
            >>> w = ef.Variable([1.0])
            >>> opt.build([w]); opt.build([w])
            >>> opt.get_slot(w, "momentum").numpy()
            array([0.], dtype=float32)
        """
        for var in nest.flatten(var_list):
            if not isinstance(var, Variable):
                raise TypeError(
                    f"{type(self).__name__}.build expects ef.Variables. Received: "
                    f"{type(var).__name__} {var!r}"
                )
            self._ensure_slots(var)

    def get_slot_names(self) -> list[str]:
        """The names of the slots this optimizer keeps per variable.

        Example:
            >>> import eagerflow as ef
            >>> ef.optim.Adam(amsgrad=True).get_slot_names()
            ['momentum', 'velocity', 'velocity_hat']
        """
        return list(self._slot_names)

    def get_slot(self, var, slot_name: str) -> Variable:
        """Returns slot `slot_name` of `var` (TF-2 names such as ``"m"`` also work).

        Raises:
            NotFoundError: if `var` has no slots yet or the slot name is unknown.

        Example:
            >>> import eagerflow as ef
            >>> w = ef.Variable([1.0])
            >>> opt = ef.optim.SGD(0.5, momentum=0.9)
            >>> _ = opt.apply_gradients([(ef.constant([1.0]), w)])
            >>> opt.get_slot(w, "momentum").numpy()
            array([-0.5], dtype=float32)
        """
        slot_name = getattr(self, "_slot_aliases", {}).get(slot_name, slot_name)
        entry = self._slots.get(id(var))
        if entry is None or entry[0] is not var:
            raise errors.NotFoundError(
                f"{type(self).__name__} has no slots for variable {getattr(var, 'name', var)!r}"
                " yet: they are created by its first apply_gradients, or by "
                "optimizer.build(var_list)."
            )
        if slot_name not in entry[1]:
            raise errors.NotFoundError(
                f"{type(self).__name__} has no slot {slot_name!r} for variable {var.name!r}; "
                f"its slots are {sorted(entry[1])}."
            )
        return entry[1][slot_name]

    def _slot_variables(self) -> list[tuple]:
        """``(variable, slot_name, slot_variable)`` for every slot, in creation order."""
        return list(self._slot_records)

    def reset_state(self) -> None:
        """Sets every slot back to its initial value and `iterations` to 0.

        Example:
            >>> import eagerflow as ef
            >>> w = ef.Variable([1.0])
            >>> opt = ef.optim.Adam()
            >>> _ = opt.apply_gradients([(ef.constant([1.0]), w)])
            >>> opt.reset_state()
            >>> opt.get_slot(w, "velocity").numpy(), int(opt.iterations)
            (array([0.], dtype=float32), 0)
        """
        for _, slot_name, slot in self._slot_records:
            slot._writable_buffer()[...] = self._slot_initial[slot_name]
        self.iterations._writable_buffer()[...] = 0
