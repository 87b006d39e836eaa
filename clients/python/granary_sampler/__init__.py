"""Tells Granary a PyTorch training job's read order, epoch by epoch, so its cache prefetches ahead of the reader."""

from .plan import PlanError, __version__, list_version, normalise_path, publish_plan
from .sampler import GranarySampler, GranaryWarning

__all__ = [
    "GranarySampler",
    "GranaryWarning",
    "PlanError",
    "publish_plan",
    "normalise_path",
    "list_version",
    "__version__",
]
