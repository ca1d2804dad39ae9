"""Runtime configuration (`ef.config`): devices, glibc malloc thresholds (opt-in), and
graph optimizer options (`ef.config.optimizer`, e.g. elementwise fusion).

Examples:
    >>> import eagerflow as ef
    >>> [d.device_type for d in ef.config.list_physical_devices()]
    ['CPU']
"""

from eagerflow.core import graph_options as optimizer
from eagerflow.core.device import PhysicalDevice, list_logical_devices, list_physical_devices
from eagerflow.ops.kernels.memory import malloc_settings, pin_malloc_thresholds

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "PhysicalDevice", "list_logical_devices", "list_physical_devices", "malloc_settings",
    "optimizer", "pin_malloc_thresholds",
]
