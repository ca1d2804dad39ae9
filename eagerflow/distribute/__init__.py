"""Data-parallel training across processes and hosts on MPI (`ef.distribute`).

Launch the same script on N processes with ``mpiexec -n N python train.py`` (install the
``mpi`` extra: ``pip install 'eagerflow[mpi]'``, which brings mpi4py and an MPICH whose
``mpiexec`` lands in the environment's ``bin/``). Alone, the script runs as one replica.
`Strategy` is the base class of strategies, and itself the default one (this process
alone, `get_strategy()` outside every scope), which `fit` uses for a model made outside
every scope. See the guide ``docs/guides/distributed.md``.

Examples:
    >>> import eagerflow as ef, numpy as np
    >>> strategy = ef.distribute.MPIStrategy()
    >>> with strategy.scope():
    ...     model = ef.Sequential([ef.layers.Dense(1)])
    ...     model.compile(optimizer="sgd", loss="mse")
    >>> _ = model.fit(np.ones((8, 2)), np.ones((8, 1)), batch_size=8, verbose=0)
    >>> strategy.num_replicas_in_sync
    1
"""

from eagerflow import absent as _absent
from eagerflow.distribute.distributed_optimizer import DistributedOptimizer
from eagerflow.distribute.mpi_strategy import MPIStrategy
from eagerflow.models.strategy import Strategy, get_strategy, has_strategy

__all__ = ["DistributedOptimizer", "MPIStrategy", "Strategy", "get_strategy", "has_strategy"]


__getattr__ = _absent.namespace_getattr(__name__, "tf.distribute")
