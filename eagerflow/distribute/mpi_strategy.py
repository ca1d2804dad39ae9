"""`MPIStrategy`: data-parallel training on the processes of an MPI job.

Every process (rank) runs the same script on its own slice of each global batch; the
ranks exchange only gradients (one fused allreduce per step), metric states (when logs
are written) and, once, the initial values of the variables. The same script runs alone
when it was not started by ``mpiexec``: the strategy then has one replica and no
collective runs.

`MPIStrategy` subclasses `ef.distribute.Strategy` (`eagerflow/models/strategy.py`, where
the layers, optimizers and `fit` reach it) and supplies its communication: `sum_arrays`,
`all_reduce`, `gather`, `broadcast_object`, `all_gather_object`, and the hooks
`variable_created` (broadcast from rank 0), `reduce_gradients`, `end_of_data`,
`after_chief` and `report_failure`. What `fit` does with N ranks is the base class's.

Examples:
    >>> import eagerflow as ef
    >>> strategy = ef.distribute.MPIStrategy()     # run alone here: one replica
    >>> strategy.num_replicas_in_sync, strategy.rank, strategy.is_chief
    (1, 0, True)
"""

from __future__ import annotations

import atexit
import datetime
import math
import os
import pickle
import sys
import time
import traceback
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.core import errors, nest
from eagerflow.core import variable as variable_lib
from eagerflow.graph import python_ops
from eagerflow.models import strategy as strategy_lib

# Set by the launchers of MPICH (Hydra), Open MPI and PMIx-based ones (Slurm's srun).
_SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS")
_LAUNCH_VARIABLES = (*_SIZE_VARIABLES, "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK")
_abort_hook_installed = False
_CHIEF_NOTE_TAG = 7301  # point-to-point notes of `after_chief` (below any MPI_TAG_UB)
# How long a collective may wait for the other ranks: PyTorch's default process-group
# timeout. Generous, because a rank legitimately waits while the chief alone writes a
# large checkpoint or evaluates; a short one would fail healthy jobs.
DEFAULT_TIMEOUT = 1800.0
# Polling: a collective's request is tested in a tight loop (as MPI's blocking calls
# spin), with the other ranks' failure notes and the clock looked at, and the CPU yielded
# (as MPICH's waits do), every `_POLLS_PER_CHECK` tests: without the yield, a rank sharing
# a core with the one it waits for took the MPI tests 40% longer on a loaded machine.
# After `_SPIN_SECONDS` of waiting (e.g. while the chief writes a checkpoint) it sleeps
# between checks instead, backing off to `_MAX_PAUSE`.
_POLLS_PER_CHECK = 32
_yield = getattr(os, "sched_yield", lambda: None)
_SPIN_SECONDS = 0.25
_MAX_PAUSE = 0.002
_FAILURE_TAG = 7302  # a rank's note that its fit failed (see `report_failure`)
_NOTE_CHARACTERS = 2000  # failure notes stay small: MPI sends them without a receiver
_timed_out: list = []  # collectives left pending in this process (the exit hook aborts)


def _launched_by_mpi() -> bool:
    return any(name in os.environ for name in _LAUNCH_VARIABLES)


def _world_communicator():
    """COMM_WORLD when this process was started by an MPI launcher, else None."""
    if not _launched_by_mpi():
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        sizes = [int(os.environ[n]) for n in _SIZE_VARIABLES
                 if os.environ.get(n, "").isdigit()]
        if sizes and max(sizes) == 1:
            return None  # `mpiexec -n 1`: one process either way
        raise ImportError(
            "MPIStrategy: this process was started by an MPI launcher (mpiexec), but mpi4py "
            "is not installed, so the ranks cannot talk to each other. Install the `mpi` "
            "extra: pip install 'eagerflow[mpi]'") from None
    return MPI.COMM_WORLD


def _seconds(timeout) -> float | None:
    """`timeout` (seconds, a timedelta or None) as seconds, or an error naming it."""
    if timeout is None:
        return None
    if isinstance(timeout, datetime.timedelta):
        seconds = timeout.total_seconds()
    elif isinstance(timeout, (int, float, np.integer, np.floating)) and \
            not isinstance(timeout, bool):
        seconds = float(timeout)
    else:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError("MPIStrategy: timeout must be a positive number of seconds, a "
                         "datetime.timedelta, or None (no deadline). Received: "
                         f"timeout={timeout!r}")
    return seconds


def _install_abort_hook(comm) -> None:
    """An uncaught exception on any rank prints its traceback and aborts the whole job,
    instead of leaving the other ranks waiting forever in their next collective."""
    global _abort_hook_installed
    if _abort_hook_installed:
        return
    _abort_hook_installed = True
    rank, size = comm.Get_rank(), comm.Get_size()

    def abort_on_error(kind, value, trace):
        try:
            text = "".join(traceback.format_exception(kind, value, trace))
            sys.stderr.write(f"eagerflow: rank {rank} of {size} failed; aborting the MPI "
                             f"job.\n{text}")
            sys.stderr.flush()
            sys.stdout.flush()
            # The launcher forwards our output through pipes, and the abort kills this
            # process and its I/O proxy: give the traceback a moment to get through (once,
            # on a loaded machine, it was lost without this).
            time.sleep(0.5)
        finally:
            comm.Abort(1)

    sys.excepthook = abort_on_error

    def abort_if_timed_out():
        # A rank whose collective timed out (or was given up when another rank failed)
        # still has it pending: MPI_Finalize would wait for it forever. End the job
        # instead (the error was caught by the user).
        if _timed_out:
            sys.stderr.write(f"eagerflow: rank {rank} of {size} exits after {_timed_out[0]}; "
                             "aborting the MPI job.\n")
            sys.stderr.flush()
            comm.Abort(1)

    atexit.register(abort_if_timed_out)  # after mpi4py's finalizer: runs before it


class MPIStrategy(strategy_lib.Strategy):
    """Synchronous data-parallel training over the ranks of an MPI job.

    Launch the script with ``mpiexec -n N python train.py`` (one process per core or
    host); without a launcher it runs as a single replica. Under ``with
    strategy.scope():`` create the model and the optimizer: each variable they create,
    then or later (weights built by the first call, optimizer slots), starts from rank 0's
    value on every rank. `fit` then treats `batch_size` as the global batch: each rank
    trains on its ``batch_size / N`` rows of every global batch and the gradients are
    averaged across ranks, so N ranks give the weights one process would get at the same
    global batch; logs are global and only the chief (rank 0) prints or writes files.

    An uncaught exception on any rank prints that rank's traceback and aborts the job
    (``MPI_Abort``), so no rank waits forever. When `fit`, `evaluate` or `predict` raises
    on a rank (even if the user catches it), that rank sends the others a note, and a rank
    waiting in a collective it will not join raises a `RuntimeError` naming it at once
    (ranks that failed at the same point stay in step). Each collective also has a
    deadline, `timeout` (as PyTorch's process groups have), after which it raises a
    `TimeoutError` naming the collective and the rank. The strategy cannot be used after
    either (its collectives are out of step; later ones raise at once), and a process
    that exits with a collective given up aborts the job rather than hanging in
    ``MPI_Finalize``.

    Args:
        communicator: an mpi4py communicator (default: ``MPI.COMM_WORLD`` when launched by
            MPI, else none: one replica).
        timeout: the deadline of every collective: seconds, a ``datetime.timedelta``, or
            None for none. The default, 30 minutes (``DEFAULT_TIMEOUT``, PyTorch's), leaves
            room for a rank to wait while the chief alone writes a large checkpoint or
            runs a long evaluation; lower it to notice a stuck job sooner.

    Attributes:
        timeout: the deadline in seconds (None: none).

    Raises:
        ImportError: if launched by ``mpiexec -n N`` with N > 1 but mpi4py is missing.
        ValueError: for a `timeout` that is not a positive number, a timedelta or None.

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> strategy = ef.distribute.MPIStrategy()
        >>> with strategy.scope():
        ...     model = ef.Sequential([ef.layers.Dense(1)])
        ...     model.compile(optimizer="sgd", loss="mse")
        >>> history = model.fit(np.ones((8, 2)), np.ones((8, 1)), batch_size=4, verbose=0)
        >>> float(strategy.reduce("sum", ef.constant(2.0)))
        2.0
    """

    def __init__(self, communicator: Any = None,
                 timeout: float | datetime.timedelta | None = DEFAULT_TIMEOUT) -> None:
        self.timeout = _seconds(timeout)
        self._broken: str | None = None  # what timed out: no collective may run after it
        self._completed = 0  # collectives completed: equal on every rank while in step
        self._failed_at: set[int] = set()  # `_completed` when this rank reported failures
        self._unconfirmed: int | None = None  # the last, until the others' notes came
        self._comm = _world_communicator() if communicator is None else communicator
        if self._comm is not None and self._comm.Get_size() == 1:
            self._comm = None
        self.num_replicas_in_sync = 1 if self._comm is None else self._comm.Get_size()
        self.rank = 0 if self._comm is None else self._comm.Get_rank()
        self._first_bucket: Any = None  # (size, dtype) of the last step's first gradient bucket
        self._notes: list = []  # the chief's pending notes to the other ranks (after_chief)
        self.reset_communication_stats()
        strategy_lib.strategy_made(self)
        if self._comm is not None:
            _install_abort_hook(self._comm)

    def __repr__(self) -> str:
        return (f"<MPIStrategy rank={self.rank} "
                f"num_replicas_in_sync={self.num_replicas_in_sync}>")

    # -- the public collectives (see `ef.distribute.Strategy`) -----------------------------
    def all_reduce(self, reduce_op: Any, value: Any) -> Any:
        """Each tensor of `value` summed or averaged elementwise over the ranks, on every
        rank: one fused allreduce (after a tiny one checking that every rank passes the
        same shapes and dtypes), a graph op inside `ef.function`. See
        `ef.distribute.Strategy.all_reduce`.

        Examples:
            >>> import eagerflow as ef
            >>> ef.distribute.MPIStrategy().all_reduce("mean", [ef.constant(2.0)])
            [ef.Tensor(2.0, shape=(), dtype=float32)]
        """
        values = super().all_reduce(reduce_op, value)  # checked, as tensors
        flat = nest.flatten(values)
        if self._comm is None or not flat:
            return values
        summed = python_ops.py_function(self._sum_of_replicas, flat, [v.dtype for v in flat])
        if str(getattr(reduce_op, "value", reduce_op)).lower() == "mean":
            from eagerflow import math

            size = self.num_replicas_in_sync
            summed = [math.floordiv(part, size) if part.dtype.kind in "iu" else part / size
                      for part in summed]
        return nest.pack_sequence_as(values, list(summed))

    def _sum_of_replicas(self, *parts):
        arrays = [np.asarray(part) for part in parts]
        self._check_same_layout(arrays, "MPIStrategy.all_reduce (or reduce)")
        return self.sum_arrays(arrays, "the allreduce of MPIStrategy.all_reduce (or reduce)")

    def gather(self, value: Any, axis: int) -> Any:
        """Every rank's `value` concatenated along `axis`, in rank order, on every rank
        (eagerly; a graph op inside `ef.function`). See `ef.distribute.Strategy.gather`.

        Examples:
            >>> import eagerflow as ef
            >>> ef.distribute.MPIStrategy().gather(ef.constant([[1.0, 2.0]]), axis=1)
            ef.Tensor([[1. 2.]], shape=(1, 2), dtype=float32)
        """
        value = super().gather(value, axis)  # checked, as a tensor
        if self._comm is None:
            return value

        def gather_arrays(part):
            return np.concatenate(self.all_gather_object(np.asarray(part)), axis=axis)

        return python_ops.py_function(gather_arrays, [value], value.dtype)

    def _check_same_layout(self, arrays, function: str) -> None:
        """Raises on every rank (never hangs or reduces mismatched buffers) unless every
        rank passes arrays of the same shapes and dtypes: one tiny allreduce."""
        from mpi4py import MPI

        layout = repr([(a.shape, a.dtype.str) for a in arrays])
        code = zlib.crc32(layout.encode())
        bounds = np.array([code, -code], np.int64)  # max and -min in one MAX reduction
        self._collective(f"the layout check of {function}", self._comm.Iallreduce,
                         MPI.IN_PLACE, bounds, op=MPI.MAX)
        self._stats["allreduce_calls"] += 1
        self._stats["allreduce_bytes"] += bounds.nbytes
        if bounds[0] == -bounds[1]:
            return
        layouts = self.all_gather_object(layout)
        described = "; ".join(f"rank {r}: {text}" for r, text in enumerate(layouts))
        raise ValueError(f"{function}: every rank must pass values of the same shape and "
                         f"dtype (reduce a differing axis with axis=...). Got (shape, dtype) "
                         f"per value: {described}")

    def reset_communication_stats(self) -> None:
        """Zeroes the counters `communication_stats` reports."""
        self._stats = {"allreduce_calls": 0, "allreduce_seconds": 0.0, "allreduce_bytes": 0,
                       "gradient_steps": 0}

    def communication_stats(self) -> dict:
        """Allreduce calls, seconds spent in them, bytes reduced and gradient steps so far.

        Examples:
            >>> import eagerflow as ef
            >>> ef.distribute.MPIStrategy().communication_stats()["allreduce_calls"]
            0
        """
        return dict(self._stats)

    # -- the communication (see the module docstring) -------------------------------------
    def variable_created(self, variable: Any) -> None:
        """Gives `variable` rank 0's value on every rank (one broadcast)."""
        if self._comm is None:
            return
        array = np.array(variable.numpy(), order="C")  # (ascontiguousarray makes 0-d 1-d)
        self._collective(f"the broadcast of variable {variable.name!r}", self._comm.Ibcast,
                         array.reshape(-1).view(np.uint8), root=0)
        if self.rank != 0:
            variable_lib.adopt(variable, array)

    def sum_arrays(self, arrays: list, what: str = "an allreduce") -> list:
        """The elementwise sum of each array over the ranks: one call per dtype (`what`
        names it in a timeout's error)."""
        if self._comm is None:
            return [np.array(a) for a in arrays]
        from mpi4py import MPI

        return self._packed(arrays, MPI.SUM, flag=None, what=what)

    def _packed(self, arrays, mpi_op, flag, divisor=None, what="the gradient allreduce"):
        """Packs `arrays` into one contiguous buffer per dtype and reduces each in place.
        With `flag`, the first buffer carries one more element (the step's "I had data"
        flag, see `end_of_data`). With `divisor`, each reduced buffer is divided by it in
        one pass. Returns the arrays, views of the buffers (new memory, never an input's).
        """
        from mpi4py import MPI

        groups: dict = {}
        for index, array in enumerate(arrays):
            # MPI has no portable float16: reduce those in float32.
            dtype = np.dtype(np.float32) if array.dtype == np.float16 else array.dtype
            groups.setdefault(dtype, []).append(index)
        results: list = [None] * len(arrays)
        reduced_flag = None
        for dtype, indices in groups.items():
            total = sum(arrays[i].size for i in indices)
            extra = 1 if flag is not None and reduced_flag is None else 0
            buffer = np.empty(total + extra, dtype)
            np.concatenate([arrays[i].reshape(-1) for i in indices], out=buffer[:total],
                           casting="same_kind")
            if extra:
                buffer[-1] = flag
                self._first_bucket = (buffer.size, dtype)
            start = time.perf_counter()
            self._collective(what, self._comm.Iallreduce, MPI.IN_PLACE, buffer, op=mpi_op)
            self._stats["allreduce_seconds"] += time.perf_counter() - start
            self._stats["allreduce_calls"] += 1
            self._stats["allreduce_bytes"] += buffer.nbytes
            if extra:
                reduced_flag = float(buffer[-1])
                self._check_flag(reduced_flag, flag)
            if divisor is not None:
                np.divide(buffer, divisor, out=buffer)
            offset = 0
            for i in indices:
                size = arrays[i].size
                part = buffer[offset:offset + size].reshape(arrays[i].shape)
                results[i] = part.astype(arrays[i].dtype) if part.dtype != arrays[i].dtype \
                    else part
                offset += size
        return results

    def _check_flag(self, reduced: float, own: float) -> None:
        size = self.num_replicas_in_sync
        if reduced in (0.0, float(size)):
            return
        running = int(round(reduced))
        if own:
            raise errors.OutOfRangeError(
                f"MPIStrategy: {size - running} of the {size} ranks ran out of data while "
                f"this rank (rank {self.rank}) had another batch: every rank must get the "
                "same number of batches. Feed every rank the same global batches (fit "
                "slices them; or use strategy.distribute_dataset(ds)), or shard a dataset "
                "whose size is a multiple of num_shards * batch size.")
        raise errors.OutOfRangeError(
            f"MPIStrategy: rank {self.rank} ran out of data while {running} of the {size} "
            "ranks still had a batch: every rank must get the same number of batches. Feed "
            "every rank the same global batches (fit slices them; or use "
            "strategy.distribute_dataset(ds)), or shard a dataset whose size is a multiple "
            "of num_shards * batch size.")

    def reduce_gradients(self, grads: list) -> list:
        """The mean over the ranks of each gradient, with one fused allreduce (a graph op
        inside `ef.function`): the `gradient_reducer` of the optimizers of the scope."""
        if self._comm is None or not grads:
            return list(grads)
        outputs = python_ops.py_function(self._mean_of_replicas, list(grads),
                                         [g.dtype for g in grads])
        return list(outputs)

    def _mean_of_replicas(self, *grads):
        arrays = [np.asarray(g) for g in grads]
        from mpi4py import MPI

        means = self._packed(arrays, MPI.SUM, flag=1, divisor=self.num_replicas_in_sync)
        self._stats["gradient_steps"] += 1
        return means

    def end_of_data(self) -> None:
        """Called by a rank whose data ended: matches the other ranks' next gradient
        allreduce with a "no data" flag, so that a rank running out early makes every
        rank raise instead of hanging. Nothing to match before the first step."""
        if self._comm is None or self._first_bucket is None:
            return
        from mpi4py import MPI

        size, dtype = self._first_bucket
        buffer = np.zeros(size, dtype)
        self._collective("the gradient allreduce (this rank's data had ended)",
                         self._comm.Iallreduce, MPI.IN_PLACE, buffer, op=MPI.SUM)
        self._check_flag(float(buffer[-1]), 0.0)

    def after_chief(self, action: Callable[[], Any], what: str) -> Any:
        """Runs `action()` on the chief, and on every other rank once the chief's has
        ended (so a file the chief wrote just before is complete when the others read it).
        The chief only posts a note to each rank and waits for none: a call made on the
        chief alone cannot hang. An error on the chief is raised on the waiting ranks too.
        """
        if self._comm is None:
            return action()
        if self.is_chief:
            try:
                result = action()
            except Exception as error:
                self._post_note(error, what)
                raise
            self._post_note(None, what)
            return result
        self._check_usable()
        self._wait(lambda: self._comm.Iprobe(source=0, tag=_CHIEF_NOTE_TAG),
                   f"the wait for rank 0's {what}")
        failure = self._comm.recv(source=0, tag=_CHIEF_NOTE_TAG)
        if failure is not None:
            raise failure
        return action()

    def _post_note(self, error, function: str) -> None:
        note = error
        if error is not None:
            try:
                pickle.loads(pickle.dumps(error))
            except Exception:  # an error that does not survive pickling: its text
                note = RuntimeError(f"{function} failed on rank 0: "
                                    f"{type(error).__name__}: {error}")
        self._notes = [request for request in self._notes if not request.Test()]
        for rank in range(1, self.num_replicas_in_sync):
            self._notes.append(self._comm.isend(note, dest=rank, tag=_CHIEF_NOTE_TAG))

    def broadcast_object(self, obj: Any) -> Any:
        """Rank 0's `obj` (any picklable object) on every rank."""
        if self._comm is None:
            return obj
        data = np.frombuffer(pickle.dumps(obj), np.uint8) if self.is_chief else None
        size = np.array([0 if data is None else data.size], np.int64)
        self._collective("a broadcast", self._comm.Ibcast, size, root=0)
        buffer = data.copy() if data is not None else np.empty(int(size[0]), np.uint8)
        self._collective("a broadcast", self._comm.Ibcast, buffer, root=0)
        return obj if self.is_chief else pickle.loads(buffer.tobytes())  # noqa: S301 - ours

    def all_gather_object(self, obj: Any) -> list:
        """Every rank's `obj` (any picklable object), in rank order, on every rank."""
        if self._comm is None:
            return [obj]
        from mpi4py import MPI

        data = np.frombuffer(pickle.dumps(obj), np.uint8)
        sizes = np.empty(self.num_replicas_in_sync, np.int64)
        self._collective("an allgather", self._comm.Iallgather,
                         np.array([data.size], np.int64), sizes)
        counts = [int(n) for n in sizes]
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(int).tolist()
        buffer = np.empty(sum(counts), np.uint8)
        self._collective("an allgather", self._comm.Iallgatherv, data,
                         [buffer, (counts, offsets), MPI.BYTE])
        return [pickle.loads(buffer[start:start + n].tobytes())  # noqa: S301 - our ranks'
                for start, n in zip(offsets, counts, strict=True)]

    # -- deadlines and failures --------------------------------------------------------
    def _check_usable(self) -> None:
        if self._broken is not None:
            raise errors.FailedPreconditionError(
                f"MPIStrategy: {self._broken}, so the ranks' collectives are out of step and "
                "no other collective can run. End the job on every rank and start it again "
                "(a BackupAndRestore callback resumes the training).")

    def _collective(self, what: str, start, *args, **kwargs) -> None:
        """Starts a non-blocking collective (``start(*args, **kwargs)``, e.g.
        ``comm.Iallreduce``) and waits for it within the deadline; refuses to start one
        once the ranks are out of step."""
        self._check_usable()
        if self._unconfirmed is not None:
            self._confirm_in_step(what)
        self._wait(start(*args, **kwargs).Test, what, pending=True)
        self._completed += 1

    def report_failure(self, error: BaseException) -> None:
        """Tells the other ranks that `fit` (or `evaluate`, `predict`) failed here with
        `error`, so that those waiting in a collective this rank will not join raise at
        once rather than at the deadline. A note carries the number of collectives this
        rank completed: ranks that failed at the same point (the same error raised on
        every rank, e.g. data that ends early) are still in step, and go on once each
        has heard from all the others (`_confirm_in_step`). Sent without waiting; never
        raises."""
        if self._comm is None or getattr(error, "_eagerflow_reported", False):
            return
        try:
            error._eagerflow_reported = True  # type: ignore[attr-defined]  # once, when nested
        except AttributeError:
            pass
        kind = "broken" if self._broken is not None else "failed"
        text = f"{type(error).__name__}: {error}"[:_NOTE_CHARACTERS]
        if kind == "failed":
            self._failed_at.add(self._completed)
            self._unconfirmed = self._completed
        self._notes = [request for request in self._notes if not request.Test()]
        for rank in range(self.num_replicas_in_sync):
            if rank != self.rank:
                self._notes.append(self._comm.isend((kind, self._completed, text), dest=rank,
                                                    tag=_FAILURE_TAG))

    def _confirm_in_step(self, what: str) -> None:
        """Before its next collective, a rank that failed waits for every other rank's
        note: all failed at the same point (in step: go on), or one gave up waiting for
        this rank (raise)."""
        others = set(range(self.num_replicas_in_sync)) - {self.rank}
        heard: set = set()
        self._wait(lambda: heard >= others, f"{what} (after a failure, the other ranks' "
                   "notes)", heard=heard)
        self._unconfirmed = None

    def _read_failure_notes(self, what: str, heard: set | None, pending: bool) -> None:
        """Reads the other ranks' failure notes; raises for one this rank is not in step
        with (`heard` collects the ranks that failed where this one did)."""
        if self._comm is None:
            return
        from mpi4py import MPI

        status = MPI.Status()
        while self._comm.Iprobe(source=MPI.ANY_SOURCE, tag=_FAILURE_TAG, status=status):
            source = status.Get_source()
            kind, completed, text = self._comm.recv(source=source, tag=_FAILURE_TAG)
            if kind == "failed" and completed in self._failed_at:
                if heard is not None:
                    heard.add(source)
                continue  # we failed at the same point: still in step
            self._broken = f"rank {source} failed ({text})"
            if pending:
                _timed_out.append(f"{what} was given up when rank {source} failed")
            raise RuntimeError(
                f"MPIStrategy: rank {source} failed ({text}) while this rank "
                f"({self.rank}) waited in {what}, which it will never join. The strategy "
                "cannot be used again; end the job on every rank.")

    def _wait(self, ready, what: str, pending: bool = False, heard: set | None = None) -> None:
        """Polls `ready()` until it is true; raises when another rank reports a failure
        (`report_failure`), or `TimeoutError` after `timeout`. `pending`: a collective
        of this rank is under way (an exit after giving it up must abort the job)."""
        self._check_usable()
        if ready():
            return
        start = time.monotonic()
        pause = 0.0
        polls = 0
        while not ready():
            polls += 1
            if polls % _POLLS_PER_CHECK:
                continue  # the notes, the clock and the pause: once per so many polls
            self._read_failure_notes(what, heard, pending)
            waited = time.monotonic() - start
            if self.timeout is not None and waited > self.timeout:
                self._broken = f"{what} timed out on rank {self.rank} after {waited:.1f} s"
                if pending:
                    _timed_out.append(self._broken)
                raise TimeoutError(
                    f"MPIStrategy: {what} on rank {self.rank} of {self.num_replicas_in_sync} "
                    f"did not complete within the deadline ({self.timeout:g} s): another rank "
                    "never joined it (its error was caught and it went on, it hangs, or it "
                    "runs other code). The strategy cannot be used again; end the job on "
                    "every rank. Set the deadline with MPIStrategy(timeout=seconds).")
            if waited > _SPIN_SECONDS:
                pause = min(_MAX_PAUSE, pause * 2 or 5e-5)
                time.sleep(pause)
            else:  # let a rank sharing this core run (MPICH's own waits yield too)
                _yield()
