"""Runtime configuration (`ef.config`): devices.

Example:
    >>> import eagerflow as ef
    >>> [d.device_type for d in ef.config.list_physical_devices()]
    ['CPU']
"""

from eagerflow.core.device import PhysicalDevice, list_logical_devices, list_physical_devices

__all__ = ["PhysicalDevice", "list_logical_devices", "list_physical_devices"]
