"""Runtime configuration (`ef.config`): devices, and glibc malloc thresholds (opt-in).

Examples:
    >>> import eagerflow as ef
    >>> [d.device_type for d in ef.config.list_physical_devices()]
    ['CPU']
"""

from eagerflow.core.device import PhysicalDevice, list_logical_devices, list_physical_devices
from eagerflow.ops.kernels.memory import malloc_settings, pin_malloc_thresholds

# Each name is declared once, by its import above.
__all__ = sorted(name for name in dir() if not name.startswith("_"))
