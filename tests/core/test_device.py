"""Device scopes and queries (eagerflow/core/device.py)."""

import pytest

import eagerflow as ef

_GPU_MESSAGE = (r"no GPU is available\. eagerflow computes on the CPU only \(it has no GPU "
                r"backend\); available devices: \['/device:CPU:0'\]\.")


@pytest.mark.parametrize("spec", [
    "/cpu:0", "CPU:0", "cpu", "/CPU:0", "/device:CPU:0",
    "/job:localhost/replica:0/task:0/device:CPU:0", None, "",
])
def test_cpu_scopes(spec):
    with ef.device(spec):
        x = ef.constant([1.0]) * 2.0
    assert x.device == "/device:CPU:0"


def test_scopes_nest_and_unwind():
    with ef.device("/cpu:0"):
        with ef.device("CPU:0"):
            inner = ef.constant([1.0]) + 1.0
        outer = ef.constant([1.0]) + 1.0
    assert inner.device == outer.device == "/device:CPU:0"
    with pytest.raises(RuntimeError, match="inside"):
        with ef.device("/cpu:0"):
            raise RuntimeError("inside")
    with pytest.raises(ef.errors.NotFoundError, match="no GPU"):  # a bad scope still fails
        with ef.device("/cpu:0"):
            with ef.device("/gpu:0"):
                pass


def test_tensors_and_variables_live_on_the_cpu():
    t = ef.constant([1.0, 2.0])
    assert t.device == "/device:CPU:0"
    assert t.cpu() is t
    assert ef.Variable(1.0).device == "/device:CPU:0"


def test_device_queries():
    assert ef.config.list_physical_devices("GPU") == []
    assert ef.config.list_physical_devices("gpu") == []
    cpus = ef.config.list_physical_devices("CPU")
    assert [(d.name, d.device_type) for d in cpus] == [("/physical_device:CPU:0", "CPU")]
    assert ef.config.list_physical_devices() == cpus
    assert [d.name for d in ef.config.list_logical_devices()] == ["/device:CPU:0"]
    assert ef.config.list_logical_devices("GPU") == []
    assert ef.config.list_physical_devices("TPU") == []
    assert ef.num_gpus() == 0


@pytest.mark.parametrize("spec", ["/gpu:0", "GPU:1", "/device:GPU:0", "gpu"])
def test_gpu_scopes_raise_a_clear_error(spec):
    with pytest.raises(ef.errors.NotFoundError, match=rf"device\('{spec}'\): {_GPU_MESSAGE}"):
        with ef.device(spec):
            pass


def test_tensor_gpu_raises():
    with pytest.raises(ef.errors.NotFoundError, match=rf"Tensor\.gpu\(0\): {_GPU_MESSAGE}"):
        ef.constant(1.0).gpu()
    with pytest.raises(ef.errors.NotFoundError, match=r"Tensor\.gpu\(1\): no GPU"):
        ef.constant(1.0).gpu(1)


@pytest.mark.parametrize("spec", ["/cpu:1", "/tpu:0", "/device:TPU:0"])
def test_unknown_devices_raise(spec):
    with pytest.raises(ef.errors.NotFoundError,
                       match=rf"Device '{spec}' does not exist; available devices: "
                             rf"\['/device:CPU:0'\]\."):
        with ef.device(spec):
            pass


@pytest.mark.parametrize("spec", ["bogus spec", "/cpu:zero", 0])
def test_malformed_device_specs(spec):
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"Invalid device specification '{spec}'; expected e\.g\. '/cpu:0' "
                             rf"or '/device:CPU:0'\."):
        with ef.device(spec):
            pass
