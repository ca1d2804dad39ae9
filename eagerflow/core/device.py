"""Device scopes and device queries. eagerflow computes on the CPU only.

`device("/cpu:0")` scopes placement (every tensor reports ``"/device:CPU:0"``); asking
for a GPU is a clear `NotFoundError` rather than a silent fallback.

Examples:
    >>> import eagerflow as ef
    >>> with ef.device("/cpu:0"):
    ...     x = ef.constant(1.0)
    >>> x.device
    '/device:CPU:0'
    >>> ef.config.list_physical_devices("GPU")
    []
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any, NamedTuple, NoReturn

from eagerflow.core import errors

_SPEC = re.compile(
    r"^(?:/job:[\w-]+)?(?:/replica:\d+)?(?:/task:\d+)?/?(?:device:)?"
    r"(?P<kind>[a-zA-Z]+)(?::(?P<index>\d+))?$"
)


class PhysicalDevice(NamedTuple):
    """A device eagerflow can compute on."""

    name: str
    device_type: str


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")


def no_gpu(what: str) -> NoReturn:
    """Raises the error for any request of a GPU."""
    raise errors.NotFoundError(
        f"{what}: no GPU is available. eagerflow computes on the CPU only (it has no GPU "
        "backend); available devices: ['/device:CPU:0'].")


@contextlib.contextmanager
def device(device_name: Any) -> Iterator[Any]:
    """Scopes the ops run inside it to `device_name` (``"/cpu:0"``, ``"CPU:0"``, ...).

    Args:
        device_name: a device spec, or None (or "") for no constraint.

    Raises:
        NotFoundError: for a GPU or any device other than CPU 0.
        InvalidArgumentError: for a string that is not a device spec.
    """
    if device_name is not None and device_name != "":  # "" means no constraint, as in TF
        spec = str(device_name)
        match = _SPEC.match(spec)
        if match is None:
            raise errors.InvalidArgumentError(
                f"Invalid device specification {spec!r}; expected e.g. '/cpu:0' or "
                "'/device:CPU:0'."
            )
        kind, index = match.group("kind").upper(), int(match.group("index") or 0)
        if kind == "GPU":
            no_gpu(f"device({spec!r})")
        if kind != "CPU" or index != 0:
            raise errors.NotFoundError(
                f"Device {spec!r} does not exist; available devices: ['/device:CPU:0']."
            )
    yield  # every op runs on the CPU: there is no placement to record


def list_physical_devices(device_type: Any = None) -> list:
    """Lists the physical devices of `device_type` (``"CPU"``, ``"GPU"`` or None for all)."""
    if device_type is None or str(device_type).upper() == "CPU":
        return [_CPU]
    return []


def list_logical_devices(device_type: Any = None) -> list:
    """Lists the logical devices of `device_type`; one CPU here."""
    if device_type is None or str(device_type).upper() == "CPU":
        return [PhysicalDevice("/device:CPU:0", "CPU")]
    return []


def num_gpus() -> int:
    """The number of available GPUs: always 0.

    Examples:
        >>> import eagerflow as ef
        >>> ef.num_gpus()
        0
    """
    return 0
