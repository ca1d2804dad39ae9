"""`ef.distribute` on a real MPI job: ``mpiexec -n 2`` launched from the venv's bin/.

The checks live in `mpi_worker.py` and are grouped into three launches (each costs about a
second): everything that must work, a rank that raises, and a rank whose error is caught
(the others learn of it at once when it failed in fit, else at their collective's
deadline, 1 s there).
"""

import os
import pathlib
import shutil
import subprocess
import sys
import time

import pytest

WORKER = pathlib.Path(__file__).with_name("mpi_worker.py")
CHECKS = ["replicas_identical_after_fit", "equals_one_process", "evaluate_predict",
          "uneven_batch_error", "chief_writes", "custom_loop", "reduce", "sharding",
          "backup_and_restore", "out_of_data_error", "shuffle_seeds_shared",
          "distributed_dataset_evaluation", "batchnorm_moving_statistics", "early_stopping",
          "clipping_after_averaging", "reduce_checks_layout", "load_after_chief_save",
          "one_rank_stops", "optimizers_made_in_scope_average",
          "pydataset_shuffled", "backup_and_restore_dropout_bitwise",
          "unequal_data_error", "collectives"]


def _mpiexec():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        pytest.skip("mpi4py is not installed: install the `mpi` extra "
                    "(pip install -e '.[mpi]') to run the MPI tests")
    found = pathlib.Path(sys.executable).with_name("mpiexec")
    path = str(found) if found.exists() else shutil.which("mpiexec")
    if path is None:
        pytest.skip("no mpiexec next to the interpreter or on PATH: install the `mpi` "
                    "extra (pip install -e '.[mpi]'), whose mpich wheel provides it")
    return path


def _launch(case, directory, timeout=120):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PMI_", "PMIX_", "OMPI_", "MPI_", "HYDRA_"))}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    start = time.perf_counter()
    result = subprocess.run([_mpiexec(), "-n", "2", sys.executable, str(WORKER), case,
                             str(directory)], capture_output=True, text=True,
                            timeout=timeout, env=env)
    return result, time.perf_counter() - start


def test_two_ranks_train_like_one_process(tmp_path):
    result, _ = _launch("main", tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    missing = [f"{check} rank={rank}" for check in CHECKS for rank in (0, 1)
               if f"OK {check} rank={rank}" not in result.stdout]
    assert not missing, output
    assert output.count("Epoch 1/1") == 1, output  # one fit with verbose=2: chief only


def test_a_raising_rank_aborts_the_job_with_its_traceback(tmp_path):
    result, seconds = _launch("fault", tmp_path, timeout=60)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "boom on rank 1" in output and "rank 1 of 2 failed" in output, (
        result.returncode, output)
    assert "training finished" not in output
    assert seconds < 30, seconds  # no rank waited forever in its allreduce


def test_a_caught_error_on_one_rank_reaches_the_others_or_times_them_out(tmp_path):
    result, seconds = _launch("caught_fault", tmp_path, timeout=60)
    output = result.stdout + result.stderr
    assert "rank 1 caught its error and went on" in output, output
    assert "rank 0 learned of it after" in output, output
    assert "rank 0 refuses further collectives" in output, output
    assert "rank 1 refuses further collectives" in output, output
    assert "rank 0 timed out after" in output, output
    assert "exits after the allreduce agreeing on stop_training was given up when rank 1 " \
           "failed" in output, output
    assert result.returncode != 0, output  # rank 0 aborted the job at its exit
    assert seconds < 30, seconds
