"""The Optimizer base class: gradients in, variable updates out, eagerly or in a graph.

One step (`apply_gradients`) does, in Keras 3's order:

1. drop the pairs whose gradient is None, with one warning naming those variables and why
   the tape gave None (an error, with the same details, when every gradient is None);
2. cast each gradient to its variable's dtype, checking its shape;
3. create the slots of variables seen for the first time (`build`);
4. with `gradient_accumulation_steps=N`: add the gradients to their accumulators and, on
   every N-th call only, go on with their mean (and zero the accumulators); the other
   calls change no variable;
5. clip (`clipnorm`, `clipvalue` or `global_clipnorm`);
6. evaluate the learning rate once (a schedule is called with `iterations`);
7. per variable: decoupled weight decay, the subclass's `update_step`, then the
   variable's constraint;
8. with `use_ema`: update each variable's moving average (and, every
   `ema_overwrite_frequency` updates, copy it into the variable);
9. add one to `iterations` (and to `global_step` when given).

Every rule is written once, as its formula on eagerflow ops with ``assign``,
``assign_add`` and ``assign_sub`` (`update_step`). Eagerly each op runs at once (outside any
tape); inside `ef.function` the same code becomes graph nodes whose writes happen in
program order on every call, and the graph compiler turns the update chains into in-place
NumPy kernels. A variable's write never changes a tensor read from it earlier.

Hyperparameters (``learning_rate``, ``beta_1``, ``momentum``, ...) are non-trainable float32
Variables from construction (`hyperparameters.Hyperparameter`): assigning a number changes
them for the next step and checkpoints save them; the learning rate may instead be a
schedule, called with `iterations` every step, or a callable without arguments.

Slot variables (momentum, velocity, accumulators) are declared in one place, the rule's
`build(var_list)`, as in Keras 3: it calls ``super().build(var_list)`` and then
`add_optimizer_variables` (or `add_variable_from_reference` for a slot of its own shape).
`build` runs for the variables an update sees for the first time, or earlier when called.
Slots live in one table, keyed by the identity of their variable (which the optimizer
keeps alive so its `id` cannot be reused), and are listed by `slot_variables()`, the
interface checkpoints read. Each new slot is announced through
`Trackable._track_new_slot`, so a deferred checkpoint restore fills it before the first
update reads it.

Examples:
    >>> import eagerflow as ef
    >>> w = ef.Variable([1.0, 2.0])
    >>> opt = ef.optim.SGD(learning_rate=0.1)
    >>> opt.apply_gradients([(ef.constant([1.0, 1.0]), w)])
    <ef.Variable 'sgd/iterations' shape=() dtype=int64, numpy=1>
    >>> w.numpy()
    array([0.9, 1.9], dtype=float32)
"""

from __future__ import annotations

import abc
import numbers
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from eagerflow.core import context, errors, nest, tensor, trackable
from eagerflow.core import tape as tape_module
from eagerflow.core import variable as variable_module
from eagerflow.core.variable import Variable
from eagerflow.ops import creation, logic, math
from eagerflow.ops.typing import DTypeLike
from eagerflow.optim import clipping, fused, hyperparameters, schedules


def _check_count(value, what: str, owner: str, minimum: int):
    """None, or an int >= `minimum`; anything else is a ValueError naming `what`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{owner}: `{what}` must be None or an int >= {minimum}. "
                         f"Received: {what}={value!r}")
    return int(value)


class _Slot(NamedTuple):
    """One slot of one variable: its Variable and the value `reset_state` restores."""

    variable: Variable
    initial: float


_BASE_SLOTS = ("average", "gradient_accumulator")  # the slots of the base class's options


class Optimizer(trackable.Trackable, abc.ABC):
    """Base class of optimizers (`SGD`, `Adam`, `AdamW`, `Nadam`, `Adamax`, `RMSprop`, `Adagrad`,
    `Adadelta`, `Lion`, `Adafactor`, `Ftrl`).

    Args:
        learning_rate: a float, a `Variable` (used as is, so assigning it takes effect),
            a `schedules.LearningRateSchedule` (called with `iterations` every step), or a
            callable without arguments returning the rate.
        clipnorm: if set, each gradient ``g`` is rescaled to
            ``g * clipnorm / max(norm(g), clipnorm)`` (each tensor on its own).
        clipvalue: if set, each gradient element is clipped to ``[-clipvalue, clipvalue]``.
        global_clipnorm: if set, all gradients are rescaled together by
            ``global_clipnorm / max(global_norm, global_clipnorm)`` where ``global_norm`` is
            the norm of all of them concatenated (NaN when that norm is not finite).
        weight_decay: if set, each step first does ``w -= w * weight_decay *
            learning_rate`` (decoupled weight decay), except for excluded variables (see
            `exclude_from_weight_decay`).
        use_ema: keep an exponential moving average of each updated variable (slot
            ``average``): after every step ``average = ema_momentum * average + (1 -
            ema_momentum) * w``, except that the first update copies ``w``.
            `finalize_variable_values` copies the averages into the variables (`fit` does it
            at the end).
        ema_momentum: the average's decay, in [0, 1].
        ema_overwrite_frequency: None, or every how many updates the averages are also
            copied into the variables during training (an int >= 1).
        gradient_accumulation_steps: None, or N >= 2: each call adds the gradients to an
            accumulator (slot ``gradient_accumulator``) and only every N-th call updates the
            variables, with the mean of the N gradients. The rules (bias corrections, EMA)
            count updates, ``iterations // N``; learning-rate schedules see `iterations`.
        name: the optimizer's name (default: the class name in snake case).

    Attributes:
        iterations: int64 Variable, the number of `apply_gradients` calls so far (the
            global step); with gradient accumulation it counts calls, not updates (Keras 3
            saves the same counter, and shows ``iterations // N`` as its `iterations`).
        gradient_reducer: the gradient-reduction hook: None (the default), or a function
            from the list of gradients to the list every update then uses, called first
            in `apply_gradients` (before accumulation and clipping). A distribution
            strategy sets it to its `reduce_gradients` (the mean over the replicas) on
            the optimizers made under its scope, on the model's optimizer in `fit`, and in
            `ef.distribute.DistributedOptimizer`.

    Raises:
        ValueError: for a learning rate of the wrong type, a non-positive clipping value,
            more than one clipping option, a negative weight decay, an `ema_momentum`
            outside [0, 1], or an accumulation or overwrite count that is not an int of
            the right size.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable(3.0)
        >>> opt = ef.optim.SGD(learning_rate=0.5)
        >>> loss = opt.minimize(lambda: w * w)
        >>> float(w), int(opt.iterations)
        (0.0, 1)
    """

    weight_decay = hyperparameters.Hyperparameter()
    gradient_reducer: Any = None  # the gradient-reduction hook (see Attributes)

    def __init__(self, learning_rate: Any = 0.001, clipnorm: Any = None, clipvalue: Any = None,
                 global_clipnorm: Any = None, weight_decay: Any = None, use_ema: bool = False,
                 ema_momentum: float = 0.99, ema_overwrite_frequency: Any = None,
                 gradient_accumulation_steps: Any = None, name: str | None = None,
                 **kwargs: Any) -> None:
        owner = type(self).__name__
        if kwargs:
            if "lr" in kwargs:
                raise TypeError(
                    f"{owner}: `lr` is not an argument (it was removed in Keras 2.x): use "
                    f"learning_rate={kwargs['lr']!r}.")
            raise TypeError(
                f"{owner}: unexpected argument(s) {sorted(kwargs)}. Arguments of every "
                "optimizer: learning_rate, clipnorm, clipvalue, global_clipnorm, "
                "weight_decay, use_ema, ema_momentum, ema_overwrite_frequency, "
                "gradient_accumulation_steps, name (and the rule's own, see help(ef.optim."
                + owner + ")).")
        self.name = name or trackable.snake_case(owner)
        clips = {"clipnorm": clipnorm, "clipvalue": clipvalue, "global_clipnorm": global_clipnorm}
        if sum(value is not None for value in clips.values()) > 1:
            raise ValueError(
                f"{owner}: only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. "
                f"Received: clipnorm={clipnorm}, clipvalue={clipvalue}, "
                f"global_clipnorm={global_clipnorm}"
            )
        for what, value in clips.items():
            if value is not None and hyperparameters.check_float(value, what, owner) <= 0:
                raise ValueError(f"{owner}: `{what}` must be > 0. Received: {what}={value!r}")
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self.use_ema = bool(use_ema)
        self.ema_momentum = hyperparameters.check_float(ema_momentum, "ema_momentum", owner,
                                                        0.0, 1.0)
        self.ema_overwrite_frequency = _check_count(
            ema_overwrite_frequency, "ema_overwrite_frequency", owner, 1)
        self.gradient_accumulation_steps = _check_count(
            gradient_accumulation_steps, "gradient_accumulation_steps", owner, 2)
        self.iterations = Variable(np.int64(0), trainable=False, name=f"{self.name}/iterations")
        self._hypers: dict[str, Variable] = {}
        self._state: dict[str, Variable] = {}
        self._state_initial: dict[str, float] = {}
        # The learning rate, in one place: a Variable (checkpointed as the child
        # ``learning_rate``), a schedule, or a callable without arguments.
        self._learning_rate: Any = None
        self.learning_rate = learning_rate
        if weight_decay is not None:
            decay = hyperparameters.check_float(weight_decay, "weight_decay", owner, 0)
            self._set_hyper("weight_decay", decay)
        # The slot table: id(variable) -> (variable, {slot name: _Slot}) for every variable
        # `build` has seen. The entry holds the variable, so its id cannot be reused while
        # the optimizer lives. `_slot_names` lists the names `build` declares, in order.
        self._slots: dict[int, tuple[Variable, dict[str, _Slot]]] = {}
        self._slot_names: list[str] = []
        self._exclude_ids: set[int] = set()
        self._exclude_pattern: Any = None
        self._decay_cache: dict[int, bool] = {}

    # -- state ------------------------------------------------------------------------------
    def _trackable_children(self) -> dict:
        # Own state only; slots are reached through `slot_variables()`.
        children = {"iterations": self.iterations}
        if isinstance(self._learning_rate, Variable):
            children["learning_rate"] = self._learning_rate
        children.update(self._hypers)
        children.update(self._state)
        return children

    def add_state_variable(self, name: str, initial_value: float,
                           dtype: DTypeLike = "float32") -> Variable:
        """Creates (once) and returns a scalar state variable of the optimizer itself.

        For state shared by every variable, such as Nadam's running product of momentum
        coefficients; it is checkpointed under ``optimizer/<name>`` and restored even when
        created after `Checkpoint.restore` (deferred restore).

        Examples:
            >>> import eagerflow as ef
            >>> opt = ef.optim.SGD()
            >>> opt.add_state_variable("product", 1.0)
            <ef.Variable 'sgd/product' shape=() dtype=float32, numpy=1.0>
        """
        variable = self._state.get(name)
        if variable is None:
            variable = Variable(np.asarray(initial_value, dtype), trainable=False,
                                name=f"{self.name}/{name}")
            self._state[name] = variable
            self._state_initial[name] = initial_value
            self._track_new_variable(name, variable)
        return variable

    @property
    def variables(self) -> list[Variable]:
        """Every variable of the optimizer: iterations, hyperparameters, then the slots.

        Examples:
            >>> import eagerflow as ef
            >>> opt = ef.optim.SGD(momentum=0.9)
            >>> opt.build([ef.Variable([1.0], name="w")])
            >>> [v.name for v in opt.variables]
            ['sgd/iterations', 'sgd/learning_rate', 'sgd/momentum', 'w/momentum']
        """
        rate = [self._learning_rate] if isinstance(self._learning_rate, Variable) else []
        return [self.iterations, *rate, *self._hypers.values(), *self._state.values(),
                *(slot for _, _, slot in self.slot_variables())]

    # -- hyperparameters and the learning rate ---------------------------------------------
    def _set_hyper(self, name: str, value) -> None:
        current = self._hypers.get(name)
        if isinstance(value, Variable):
            self._hypers[name] = value
            self._track_new_variable(name, value)
            return
        number = hyperparameters.check_float(
            float(value) if isinstance(value, tensor.Tensor) else value, name,
            type(self).__name__)
        if current is None:
            current = Variable(np.float32(number), trainable=False, name=f"{self.name}/{name}")
            self._hypers[name] = current
            self._track_new_variable(name, current)
        else:
            current.assign(np.asarray(number, current.dtype))

    def _hyper(self, name: str) -> float:
        """The current value of hyperparameter `name` as a Python float (no tape, no op)."""
        return float(self._hypers[name].numpy())

    @property
    def learning_rate(self) -> Any:
        """The learning rate: its Variable, or the schedule's value at `iterations`.

        Assign a float (or a Variable, schedule or callable) to change it for the next step.

        Examples:
            >>> import eagerflow as ef
            >>> opt = ef.optim.SGD(0.1)
            >>> opt.learning_rate = 0.05
            >>> opt.learning_rate
            <ef.Variable 'sgd/learning_rate' shape=() dtype=float32, numpy=0.05>
        """  # noqa: E501
        rate = self._learning_rate
        if isinstance(rate, Variable):
            return rate
        if isinstance(rate, schedules.LearningRateSchedule):
            return rate(self.iterations)
        return tensor.Tensor(rate(), "float32")

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        owner = type(self).__name__
        if isinstance(value, (schedules.LearningRateSchedule, Variable)) or (
                callable(value) and not isinstance(value, tensor.Tensor)):
            self._learning_rate = value
            if isinstance(value, Variable):
                self._track_new_variable("learning_rate", value)
            return
        if not isinstance(value, (numbers.Real, tensor.Tensor)) or isinstance(value, bool):
            raise ValueError(
                f"{owner}: `learning_rate` must be a float, a Variable, a "
                "LearningRateSchedule, or a callable without arguments returning the rate. "
                f"Received: learning_rate={value!r}"
            )
        number = hyperparameters.check_float(
            float(value) if isinstance(value, tensor.Tensor) else value, "learning_rate", owner)
        rate = self._learning_rate
        if isinstance(rate, Variable):  # its own, or the one it was given: assigned in place
            rate.assign(np.asarray(number, rate.dtype))
            return
        self._learning_rate = Variable(np.float32(number), trainable=False,
                                       name=f"{self.name}/learning_rate")
        self._track_new_variable("learning_rate", self._learning_rate)

    @property
    def current_learning_rate(self) -> float:
        """The learning rate the next step will use, as a Python float.

        Examples:
            >>> import eagerflow as ef
            >>> schedule = ef.optim.schedules.PiecewiseConstantDecay([0], [1.0, 0.5])
            >>> opt = ef.optim.SGD(schedule)
            >>> opt.current_learning_rate
            1.0
            >>> _ = opt.apply_gradients([(ef.constant(1.0), ef.Variable(0.0))])
            >>> opt.current_learning_rate
            0.5
        """
        return float(np.asarray(self._learning_rate_tensor()))

    # -- slots ------------------------------------------------------------------------------
    def build(self, var_list: Any) -> None:
        """Creates the optimizer's variables for every variable in `var_list` (idempotent).

        The one place an optimizer declares its slots, as in Keras 3: a rule overrides it,
        calls ``super().build(var_list)`` (which checks the variables and creates the
        slots of the base options, ``average`` and ``gradient_accumulator``), then
        `add_optimizer_variables` for its own. `apply_gradients` calls it with the
        variables it sees for the first time; calling it earlier makes the slots exist
        before a checkpoint is restored or saved. It may be called with an empty list to
        declare the slot names only (`get_slot_names`).

        Raises:
            TypeError: for an element that is not an `ef.Variable`.
            InvalidArgumentError: for a variable that is not floating-point.

        Examples:
            >>> import eagerflow as ef
            >>> class HeavyBall(ef.optim.Optimizer):
            ...     def build(self, var_list):
            ...         super().build(var_list)
            ...         self.add_optimizer_variables(var_list, "velocity")
            ...     def update_step(self, gradient, variable, learning_rate):
            ...         velocity = self.get_slot(variable, "velocity")
            ...         velocity.assign(0.9 * velocity - learning_rate * gradient)
            ...         variable.assign_add(velocity)
            >>> w = ef.Variable([1.0])
            >>> opt = HeavyBall(0.5)
            >>> opt.build([w]); opt.build([w])
            >>> opt.get_slot_names(), opt.get_slot(w, "velocity").numpy()
            (['velocity'], array([0.], dtype=float32))
        """
        variables = nest.flatten(var_list)
        for var in variables:
            if not isinstance(var, Variable):
                raise TypeError(
                    f"{type(self).__name__}.build expects ef.Variables. Received: "
                    f"{type(var).__name__} {var!r}"
                )
            if var.dtype.kind != "f":
                raise errors.InvalidArgumentError(
                    f"{type(self).__name__} can only update floating-point variables; "
                    f"variable {var.name!r} has dtype {var.dtype.name}."
                )
        for var in variables:
            if self._slots.get(id(var), (None,))[0] is not var:
                self._slots[id(var)] = (var, {})
        if self.use_ema:
            self.add_optimizer_variables(variables, "average")
        if self.gradient_accumulation_steps:
            self.add_optimizer_variables(variables, "gradient_accumulator")

    def add_optimizer_variables(self, var_list: Any, names: str | Sequence[str],
                                initial_value: float = 0.0) -> Any:
        """Declares slots `names` and creates them (once) for each variable of `var_list`,
        each shaped and typed like its variable and filled with `initial_value`.

        Keras 3's method: call it from `build`. With an empty `var_list` it only declares
        the names.

        Returns:
            For one name, the list of slots (one per variable); for a sequence of names, a
            tuple of such lists.

        Examples:
            >>> import eagerflow as ef
            >>> opt = ef.optim.SGD()
            >>> w = ef.Variable([1.0, 2.0])
            >>> [s.numpy() for s in opt.add_optimizer_variables([w], "extra", 0.5)]
            [array([0.5, 0.5], dtype=float32)]
        """
        variables = nest.flatten(var_list)
        many = not isinstance(names, str)
        declared: list[str] = [names] if isinstance(names, str) else list(names)
        self._slot_names += [name for name in declared if name not in self._slot_names]
        created = tuple([self.add_variable_from_reference(var, name, initial_value)
                         for var in variables] for name in declared)
        return created if many else created[0]

    def add_variable_from_reference(self, reference_variable: Any, name: str,
                                    initial_value: float = 0.0,
                                    shape: Sequence[int] | None = None) -> Variable:
        """Declares slot `name` and creates (once) and returns it for `reference_variable`,
        filled with `initial_value`, as Keras 3's method of that name.

        The slot has the variable's dtype and shape, unless `shape` is given (Adafactor's
        factored row and column statistics are smaller than their variable).

        Examples:
            >>> import eagerflow as ef
            >>> opt = ef.optim.SGD()
            >>> v = ef.Variable([[1.0, 2.0]])
            >>> opt.add_variable_from_reference(v, "row", shape=(1,)).numpy()
            array([0.], dtype=float32)
        """
        if name not in self._slot_names:
            self._slot_names.append(name)
        entry = self._slots.get(id(reference_variable))
        if entry is None or entry[0] is not reference_variable:
            self.build([reference_variable])  # a variable is in the table once built
            entry = self._slots[id(reference_variable)]
        record = entry[1].get(name)
        if record is not None:
            return record.variable
        shape = reference_variable.shape if shape is None else tuple(shape)
        slot = Variable(np.full(shape, initial_value, dtype=reference_variable.dtype),
                        trainable=False, name=f"{reference_variable.name}/{name}")
        entry[1][name] = _Slot(slot, initial_value)
        self._track_new_slot(reference_variable, name, slot)
        return slot

    def add_slot(self, var: Any, slot_name: str, initial_value: float = 0.0,
                 shape: Sequence[int] | None = None) -> Variable:
        """TensorFlow 2's name for `add_variable_from_reference`.

        Examples:
            >>> import eagerflow as ef
            >>> opt = ef.optim.SGD()
            >>> v = ef.Variable([1.0, 2.0])
            >>> opt.add_slot(v, "extra", 0.5).numpy()
            array([0.5, 0.5], dtype=float32)
        """
        return self.add_variable_from_reference(var, slot_name, initial_value, shape)

    def get_slot_names(self) -> list[str]:
        """The names of the slots this optimizer keeps per variable: its rule's, then the
        base options' (``average``, ``gradient_accumulator``).

        Examples:
            >>> import eagerflow as ef
            >>> ef.optim.Adam(amsgrad=True).get_slot_names()
            ['momentum', 'velocity', 'velocity_hat']
        """
        self.build([])  # declares the names
        base = [name for name in _BASE_SLOTS if name in self._slot_names]
        return [name for name in self._slot_names if name not in _BASE_SLOTS] + base

    def get_slot(self, var: Any, slot_name: str) -> Variable:
        """Returns slot `slot_name` of `var` (TF-2 names such as ``"m"`` also work).

        Raises:
            NotFoundError: if `var` has no slots yet or the slot name is unknown.

        Examples:
            >>> import eagerflow as ef
            >>> w = ef.Variable([1.0])
            >>> opt = ef.optim.SGD(0.5, momentum=0.9)
            >>> _ = opt.apply_gradients([(ef.constant([1.0]), w)])
            >>> opt.get_slot(w, "momentum").numpy()
            array([-0.5], dtype=float32)
        """
        slot_name = self._slot_aliases.get(slot_name, slot_name)
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
        return entry[1][slot_name].variable

    _slot_aliases: dict[str, str] = {}
    """TensorFlow 2's slot names of the rule, mapped to its names (``{"m": "momentum"}``)."""

    def slot_variables(self) -> list[tuple[Variable, str, Variable]]:
        """``(variable, slot_name, slot_variable)`` for every slot: the interface
        checkpoints read an optimizer's slots through (`eagerflow.saving.object_graph`
        keys each by its variable's path).

        Examples:
            >>> import eagerflow as ef
            >>> w = ef.Variable([1.0], name="w")
            >>> opt = ef.optim.Adam()
            >>> opt.build([w])
            >>> [(v.name, name, slot.name) for v, name, slot in opt.slot_variables()]
            [('w', 'momentum', 'w/momentum'), ('w', 'velocity', 'w/velocity')]
        """
        return [(var, name, record.variable)
                for var, slots in self._slots.values() for name, record in slots.items()]

    def reset_state(self) -> None:
        """Sets every slot back to its initial value and `iterations` to 0.

        Examples:
            >>> import eagerflow as ef
            >>> w = ef.Variable([1.0])
            >>> opt = ef.optim.Adam()
            >>> _ = opt.apply_gradients([(ef.constant([1.0]), w)])
            >>> opt.reset_state()
            >>> opt.get_slot(w, "velocity").numpy(), int(opt.iterations)
            (array([0.], dtype=float32), 0)
        """
        for _, slots in self._slots.values():
            for slot, initial in slots.values():
                slot.assign(np.full(slot.shape, initial, slot.dtype))
        for name, variable in self._state.items():
            variable.assign(np.asarray(self._state_initial[name], variable.dtype))
        self.iterations.assign(0)

    # -- weight decay ----------------------------------------------------------------------
    def exclude_from_weight_decay(self, var_list: Any = None, var_names: Any = None) -> None:
        """Excludes variables from weight decay, by identity or by a name substring.

        Args:
            var_list: variables never decayed.
            var_names: strings (regular expressions); a variable whose name contains one is
                never decayed, e.g. ``["bias", "norm"]``.

        Examples:
            >>> import eagerflow as ef
            >>> b = ef.Variable([1.0], name="dense/bias")
            >>> opt = ef.optim.AdamW(learning_rate=0.1, weight_decay=0.5)
            >>> opt.exclude_from_weight_decay(var_names=["bias"])
            >>> opt._use_weight_decay(b)
            False
        """
        self._exclude_ids = {id(v) for v in nest.flatten(var_list or [])}
        self._exclude_pattern = re.compile("|".join(var_names)) if var_names else None
        self._decay_cache = {}

    def _use_weight_decay(self, var) -> bool:
        decided = self._decay_cache.get(id(var))
        if decided is None:
            decided = id(var) not in self._exclude_ids and not (
                self._exclude_pattern is not None and self._exclude_pattern.search(var.name))
            self._decay_cache[id(var)] = decided
        return decided

    # -- the step --------------------------------------------------------------------------
    @abc.abstractmethod
    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        """Updates `variable` (and its slots) from `gradient`: the optimizer's rule.

        Subclasses write their rule here once, as a formula on eagerflow ops and
        ``assign``/``assign_add``/``assign_sub`` (Keras 3's method), so it runs the same
        eagerly and inside `ef.function`. `learning_rate` is a scalar tensor of the
        variable's dtype; slots come from ``self.get_slot(variable, name)``.

        Examples:
            >>> import eagerflow as ef
            >>> class SignSGD(ef.optim.Optimizer):
            ...     def update_step(self, gradient, variable, learning_rate):
            ...         variable.assign_sub(learning_rate * ef.sign(gradient))
            >>> w = ef.Variable([1.0, -1.0])
            >>> _ = SignSGD(learning_rate=0.5).apply_gradients([(ef.constant([3.0, -2.0]), w)])
            >>> w.numpy()
            array([ 0.5, -0.5], dtype=float32)
        """

    def _prepare_step(self) -> None:
        """Runs once per applied step, before `update_step` is called for each variable.

        The default does nothing; a rule with state shared by all variables updates it
        here (Nadam's product of momentum coefficients), with ops, so it is traced too.
        """

    def _hyper_tensor(self, name: str, dtype):
        """Hyperparameter `name` read as a tensor of `dtype` (read at every step)."""
        value = self._hypers[name].value
        return value if value.dtype == dtype else math.cast(value, dtype)

    def _update_count(self):
        """Updates applied so far (int64 tensor): `iterations`, or ``iterations // N`` with
        gradient accumulation over N calls (what Keras 3 calls `iterations`)."""
        count = self.iterations.value
        steps = self.gradient_accumulation_steps
        return count if steps is None else math.floordiv(count, steps)

    def _step_count(self, dtype):
        """The number of the update being applied (counting from 1) as a `dtype` scalar."""
        return math.cast(self._update_count() + 1, dtype)

    def _learning_rate_tensor(self):
        """The learning rate of this step as a float32 scalar tensor."""
        rate = self._learning_rate
        if isinstance(rate, Variable):
            return rate.value
        if isinstance(rate, schedules.LearningRateSchedule):
            value = rate(self.iterations)
        else:
            value = rate()
        return math.cast(creation.convert_to_tensor(value), "float32")

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None,
                        name: str | None = None) -> Any:
        """Applies one step of updates from ``(gradient, variable)`` pairs.

        Runs eagerly, or inside `ef.function` as part of the traced graph (the updates are
        graph effects, in program order, on every call).

        Args:
            grads_and_vars: any iterable of pairs, e.g. ``zip(grads, variables)``. Pairs with
                a None gradient are skipped with one warning naming their variables. An
                empty iterable does nothing (not even count a step), as in Keras.
            global_step: optional Variable incremented by one (the TF-1 call form).
            name: ignored (accepted for TensorFlow compatibility).

        Returns:
            The `iterations` Variable.

        Raises:
            InvalidArgumentError: if every gradient is None (naming each variable and why its
                gradient is None), a gradient's shape differs from its variable's, a variable
                appears twice, or a variable is not floating-point.
            TypeError: if an item is not a ``(gradient, variable)`` pair of the right types.

        Examples:
            >>> import eagerflow as ef
            >>> w = ef.Variable([1.0, 1.0])
            >>> _ = ef.optim.SGD(1.0).apply_gradients(zip([ef.constant([0.5, 0.25])], [w]))
            >>> w.numpy()
            array([0.5 , 0.75], dtype=float32)
        """
        del name
        if global_step is not None and not isinstance(global_step, Variable):
            raise TypeError(
                "apply_gradients: `global_step` must be an ef.Variable (for example "
                f"ef.train.get_or_create_global_step()). Received: {global_step!r}"
            )
        variables, grads = self._collect(grads_and_vars)
        if not variables:
            return self.iterations
        state = context.thread
        # One update group: a checkpoint saved by another thread holds the whole step or
        # none of it (traced, the executor groups the run's writes the same way).
        with variable_module.atomic_update():
            if state.tracer is None and state.tapes:
                # Eagerly, updates are not part of any recorded computation.
                with context.init_scope():
                    self._apply(grads, variables)
            else:
                self._apply(grads, variables)
            if global_step is not None:
                global_step.assign_add(1)
        return self.iterations

    def _apply(self, grads, variables) -> None:
        if self.gradient_reducer is not None:  # a strategy's: the replicas' mean, first
            grads = self.gradient_reducer(grads)
        steps = self.gradient_accumulation_steps
        if steps is None:
            self._update(grads, variables)
        else:
            self._accumulate(grads, variables, steps)
        if self.use_ema:
            self._update_averages(variables)
        self.iterations.assign_add(1)

    def _accumulate(self, grads, variables, steps: int) -> None:
        """Adds `grads` to the accumulators; every `steps`-th call updates with their mean."""
        accumulators = [self.get_slot(var, "gradient_accumulator") for var in variables]
        totals = [accumulator + grad for accumulator, grad in zip(accumulators, grads,
                                                                  strict=True)]
        if context.thread.tracer is None:
            # Eagerly the count is known: a Python branch, as Keras's `ops.cond` is.
            if (int(self.iterations.numpy()) + 1) % steps == 0:
                self._update([total / steps for total in totals], variables)
                totals = [creation.zeros_like(total) for total in totals]
            for accumulator, total in zip(accumulators, totals, strict=True):
                accumulator.assign(total)
            return
        # Traced, the count is a graph value, and `ef.cond` lives above optim (in graph/).
        # So the update runs on every call, and each variable it may write (the variables,
        # their rule slots, shared state) keeps the new value only on update steps. A write
        # never changes a tensor read earlier, so `before` holds the old values.
        is_update = logic.equal(math.mod(self.iterations.value + 1, steps), 0)
        skip = {"gradient_accumulator", "average"}
        written = [*variables, *self._state.values()]
        for var in variables:
            written += [record.variable for name, record in self._slots[id(var)][1].items()
                        if name not in skip]
        before = [target.value for target in written]
        self._update([total / steps for total in totals], variables)
        for target, old in zip(written, before, strict=True):
            target.assign(math.where(is_update, target.value, old))
        for accumulator, total in zip(accumulators, totals, strict=True):
            accumulator.assign(math.where(is_update, creation.zeros_like(total), total))

    def _update_averages(self, variables) -> None:
        """Keras 3's EMA: the first update copies the variable, later ones blend it in."""
        count = self._update_count()
        overwrite = None
        if self.ema_overwrite_frequency:
            overwrite = logic.equal(math.mod(count + 1, self.ema_overwrite_frequency), 0)
        for var in variables:
            average = self.get_slot(var, "average")
            momentum = math.cast(logic.not_equal(count, 0), var.dtype) * self.ema_momentum
            average.assign(momentum * average + (1 - momentum) * var)
            if overwrite is not None:
                var.assign(math.where(overwrite, average.value, var.value))

    def finalize_variable_values(self, var_list: Any) -> None:
        """With `use_ema`, copies each variable's moving average into it (else does nothing).

        Variables this optimizer never updated have no average and are left as they are.

        Examples:
            >>> import eagerflow as ef
            >>> w = ef.Variable(0.0)
            >>> opt = ef.optim.SGD(1.0, use_ema=True, ema_momentum=0.5)
            >>> for _ in range(3):
            ...     _ = opt.apply_gradients([(ef.constant(-1.0), w)])
            >>> float(w), float(opt.get_slot(w, "average"))
            (3.0, 2.25)
            >>> opt.finalize_variable_values([w])
            >>> float(w)
            2.25
        """
        if not self.use_ema:
            return
        for var in nest.flatten(var_list):
            entry = self._slots.get(id(var))
            if entry is not None and entry[0] is var and "average" in entry[1]:
                var.assign(entry[1]["average"].variable)

    def _update(self, grads, variables) -> None:
        """One update: clipping, the learning rate, weight decay, the rule, constraints."""
        if self.clipnorm is not None:
            grads = [clipping.clip_by_norm(g, self.clipnorm) for g in grads]
        elif self.clipvalue is not None:
            grads = [clipping.clip_by_value(g, self.clipvalue) for g in grads]
        elif self.global_clipnorm is not None:
            grads = clipping.clip_by_global_norm(grads, self.global_clipnorm)
        rate = self._learning_rate_tensor()
        self._prepare_step()
        if fused.apply(self, grads, variables, rate):  # one op per dtype (numba kernel set)
            for var in variables:
                if var.constraint is not None:
                    var.assign(var.constraint(var))
            return
        decay = self._hypers.get("weight_decay")
        rates: dict = {}
        for grad, var in zip(grads, variables, strict=True):
            dtype = var.dtype
            lr = rates.get(dtype)
            if lr is None:
                lr = rates[dtype] = rate if rate.dtype == dtype else math.cast(rate, dtype)
            if decay is not None and self._use_weight_decay(var):
                # Keras's order, (w * wd) * lr, so float32 results round the same way.
                var.assign_sub(var * self._hyper_tensor("weight_decay", dtype) * lr)
            self.update_step(grad, var, lr)
            if var.constraint is not None:
                var.assign(var.constraint(var))

    def _collect(self, grads_and_vars) -> tuple[list, list]:
        """Checks the pairs and returns the variables and their gradients (as tensors of
        the variables' dtypes, slots created); None gradients are dropped (with a warning),
        and nothing is modified before every pair is checked.
        """
        variables, grads, missing, seen = [], [], [], set()
        for pair in grads_and_vars:
            try:
                grad, var = pair
            except (TypeError, ValueError):
                raise TypeError(
                    "apply_gradients expects (gradient, variable) pairs, e.g. "
                    f"zip(grads, variables). Received an item {pair!r}"
                ) from None
            if not isinstance(var, Variable):
                raise TypeError(
                    "apply_gradients: the second element of each pair must be an ef.Variable. "
                    f"Received: {type(var).__name__} {var!r}"
                )
            if grad is None:
                missing.append(var)
                continue
            if not isinstance(grad, tensor.Tensor):
                grad = creation.convert_to_tensor(grad)
            if grad.dtype != var.dtype:
                grad = math.cast(grad, var.dtype)
            if tuple(grad.shape) != var.shape:
                raise errors.InvalidArgumentError(
                    f"Gradient for variable {var.name!r} has shape {tuple(grad.shape)}, but "
                    f"the variable has shape {var.shape}."
                )
            key = id(var)
            if key in seen:
                raise errors.InvalidArgumentError(
                    f"apply_gradients got variable {var.name!r} more than once; add its "
                    "gradients together first."
                )
            seen.add(key)
            grads.append(grad)
            variables.append(var)
        if missing:
            self._report_missing(missing, fatal=not variables)
        new = [var for var in variables if self._slots.get(id(var), (None,))[0] is not var]
        if new:
            self.build(new)
        return variables, grads

    def _report_missing(self, missing: list, fatal: bool) -> None:
        lines = []
        for var in missing:
            reason = tape_module.none_reason(var)
            lines.append(f"  {var.name!r}: {reason}" if reason else f"  {var.name!r}")
        details = "\n".join(lines)
        if fatal:
            raise errors.InvalidArgumentError(
                f"No gradients provided for any variable. Variables and why their gradient "
                f"is None:\n{details}"
            )
        names = [v.name for v in missing]
        errors.warn_once(
            f"optimizer-none-gradient:{sorted(id(v) for v in missing)}",
            f"Gradients do not exist for variables {names}; they were skipped (their slots "
            f"and weight decay are untouched). Why:\n{details}",
            stacklevel=5,  # warn_once, here, _collect, apply_gradients, the caller
        )

    def apply(self, grads: Any, trainable_variables: Any = None) -> Any:
        """Keras-3 form of `apply_gradients`: gradients and variables as two lists.

        Without `trainable_variables`, the variables the optimizer was built with, in order.

        Raises:
            InvalidArgumentError: without `trainable_variables` when the optimizer was never
                built, or when the counts differ.

        Examples:
            >>> import eagerflow as ef
            >>> w = ef.Variable(1.0)
            >>> opt = ef.optim.SGD(0.5)
            >>> opt.build([w])
            >>> _ = opt.apply([ef.constant(1.0)])
            >>> float(w)
            0.5
        """
        grads = list(grads)
        if trainable_variables is None:
            trainable_variables = [var for var, _ in self._slots.values()]
            if not trainable_variables or len(trainable_variables) != len(grads):
                raise errors.InvalidArgumentError(
                    f"apply(grads) without variables needs an optimizer built on exactly "
                    f"{len(grads)} variables (call optimizer.build(variables) first); it "
                    f"knows {len(trainable_variables)}."
                )
        trainable_variables = list(trainable_variables)
        if len(trainable_variables) != len(grads):
            raise errors.InvalidArgumentError(
                f"apply got {len(grads)} gradients for {len(trainable_variables)} variables."
            )
        return self.apply_gradients(zip(grads, trainable_variables, strict=True))

    def minimize(self, loss: Any, var_list: Any = None, tape: Any = None,
                 global_step: Any = None) -> Any:
        """Computes the gradients of `loss` and applies them.

        Args:
            loss: a callable without arguments returning the loss; or, with `tape`, the loss
                tensor that `tape` recorded.
            var_list: the variables to update (a list, or a callable returning one). By
                default, the trainable variables the loss read.
            tape: the GradientTape that recorded `loss` when `loss` is a tensor.
            global_step: optional Variable incremented by one (the TF-1 call form).

        Returns:
            The loss value.

        Raises:
            TypeError: if `loss` is not callable and no `tape` is given, or the loss is not a
                tensor.
            InvalidArgumentError: if there are no variables to update.

        Examples:
            >>> import eagerflow as ef
            >>> w = ef.Variable(2.0)
            >>> opt = ef.optim.SGD(learning_rate=0.25)
            >>> float(opt.minimize(lambda: w * w)), float(w)
            (4.0, 1.0)
        """
        if tape is None:
            if not callable(loss):
                raise TypeError(
                    "minimize: `loss` must be a callable returning the loss (e.g. "
                    f"lambda: loss_fn(model, x, y)) unless `tape` is given. Received: {loss!r}"
                )
            with tape_module.GradientTape() as tape:
                value = loss()
        else:
            if callable(loss):
                with tape:
                    value = loss()
            else:
                value = loss
        if not isinstance(value, (tensor.Tensor, Variable)):
            raise TypeError(
                f"minimize: the loss must be a Tensor computed from the variables. Received: "
                f"{type(value).__name__} {value!r}"
            )
        if callable(var_list):
            var_list = var_list()
        if var_list is None:
            var_list = [v for v in tape.watched_variables() if v.trainable]
        else:
            var_list = nest.flatten(var_list)
        if not var_list:
            raise errors.InvalidArgumentError(
                "minimize: the loss read no trainable variables, so there is nothing to "
                "update. Pass var_list, or compute the loss from trainable ef.Variables."
            )
        grads = tape.gradient(value, var_list)
        self.apply_gradients(zip(grads, var_list, strict=True), global_step=global_step)
        return value

    # -- configuration ---------------------------------------------------------------------
    _config_names: tuple = ()

    def get_config(self) -> dict:
        """The constructor arguments, as plain Python values (schedules serialized).

        Examples:
            >>> import eagerflow as ef
            >>> ef.optim.SGD(0.1, momentum=0.5).get_config()["momentum"]
            0.5
        """
        rate = self._learning_rate
        if isinstance(rate, schedules.LearningRateSchedule):
            rate = schedules.serialize(rate)
        elif isinstance(rate, Variable):
            rate = float(rate.numpy())
        config = {"name": self.name, "learning_rate": rate, "clipnorm": self.clipnorm,
                  "clipvalue": self.clipvalue, "global_clipnorm": self.global_clipnorm,
                  "use_ema": self.use_ema, "ema_momentum": self.ema_momentum,
                  "ema_overwrite_frequency": self.ema_overwrite_frequency,
                  "gradient_accumulation_steps": self.gradient_accumulation_steps}
        if "weight_decay" in self._hypers:
            config["weight_decay"] = self._hyper("weight_decay")
        for key in self._config_names:
            value = getattr(self, key)
            config[key] = float(value.numpy()) if isinstance(value, Variable) else value
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict[str, Any] | None = None) -> Any:
        """Creates an optimizer from `get_config()` output.

        Examples:
            >>> import eagerflow as ef
            >>> ef.optim.Adam.from_config(ef.optim.Adam(beta_2=0.99).get_config()).beta_2
            <ef.Variable 'adam/beta_2' shape=() dtype=float32, numpy=0.99>
        """  # noqa: E501
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"],
                                                            custom_objects)
        return cls(**config)

    def __repr__(self) -> str:
        return f"<ef.optim.{type(self).__name__} name={self.name!r}>"

