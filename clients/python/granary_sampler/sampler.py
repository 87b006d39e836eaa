"""GranarySampler: a PyTorch sampler wrapper that tells Granary each epoch's read order before the first read."""

from __future__ import annotations

import os
import re
import secrets
import socket
import warnings
from typing import Any, Iterator, List, Optional, Sequence, Set

from .plan import JOB_PATTERN, PlanError, list_version, normalise_path, publish_plan

DEFAULT_ENDPOINT = "http://127.0.0.1:8080"


class GranaryWarning(UserWarning):
    """An epoch plan was not published; training goes on without prefetch."""


class GranarySampler:
    """Yields the wrapped sampler's indices, after publishing them to Granary as this epoch's plan.

    Duck-typed rather than a torch Sampler subclass, so that importing it does not import torch.
    """

    def __init__(
        self,
        sampler: Any,
        files: Sequence[Any],
        dataset: str,
        *,
        job: Optional[str] = None,
        endpoint: Optional[str] = None,
        token: Optional[str] = None,
        prefix: str = "",
        seed: Optional[int] = None,
        timeout: float = 5.0,
    ) -> None:
        self.sampler = sampler
        self.dataset = dataset
        self.paths: List[str] = [normalise_path(f, prefix) for f in files]
        self.list_version = list_version(self.paths)
        self.job = job if job is not None else os.environ.get("GRANARY_JOB") or _default_job()
        if not JOB_PATTERN.fullmatch(self.job):
            raise ValueError(f"job {self.job!r} must be 1-64 letters, digits, '.', '_' or '-'")
        self.endpoint = endpoint or os.environ.get("GRANARY_ENDPOINT") or DEFAULT_ENDPOINT
        self.token = token if token is not None else os.environ.get("GRANARY_TOKEN")
        self.timeout = timeout
        self.rank = int(getattr(sampler, "rank", 0))
        self.world_size = int(getattr(sampler, "num_replicas", 1))
        self.seed = _seed_of(sampler, seed)
        self.last_plan_id: Optional[str] = None
        self._last_epoch = -1
        self._next_epoch: Optional[int] = None
        self._warned: Set[str] = set()

    def __len__(self) -> int:
        return len(self.sampler)

    def set_epoch(self, epoch: int) -> None:
        """The next iteration's epoch; forwarded to the wrapped sampler when it takes one (DistributedSampler)."""
        self._next_epoch = epoch
        if hasattr(self.sampler, "set_epoch"):
            self.sampler.set_epoch(epoch)

    def __iter__(self) -> Iterator[Any]:
        epoch = self._next_epoch if self._next_epoch is not None else self._last_epoch + 1
        self._last_epoch, self._next_epoch = epoch, None
        order = list(iter(self.sampler))
        # Synchronous: the plan has to reach the cache before the loader's first read.
        self._publish(epoch, order)
        yield from order

    def _publish(self, epoch: int, order: List[Any]) -> None:
        if not order:
            return  # this rank reads nothing this epoch, and the server takes no empty plan
        try:
            files = [self.paths[i] for i in order]
        except IndexError:
            self._warn(f"the sampler drew an index outside files ({len(self.paths)} paths)")
            return
        plan = {
            "dataset": self.dataset,
            "job": self.job,
            "epoch": int(epoch),
            "rank": self.rank,
            "worldSize": self.world_size,
            "seed": self.seed,
            "listVersion": self.list_version,
            "files": files,
        }
        try:
            answer = publish_plan(self.endpoint, plan, token=self.token, timeout=self.timeout)
        except PlanError as e:
            self._warn(e.reason)
            return
        plan_id = answer.get("id")
        self.last_plan_id = str(plan_id) if plan_id is not None else None

    def _warn(self, reason: str) -> None:
        # Once per reason: a cache that is down should not print a warning every epoch.
        if reason in self._warned:
            return
        self._warned.add(reason)
        warnings.warn(
            f"granary: epoch plan of job {self.job!r} rank {self.rank} not published, "
            f"reading without prefetch: {reason}",
            GranaryWarning,
            stacklevel=4,
        )


def _default_job() -> str:
    """hostname-pid-random: unique per process, so ranks of one job must be given a shared name to be one job."""
    host = re.sub(r"[^A-Za-z0-9._-]", "-", socket.gethostname())[:40] or "host"
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


def _seed_of(sampler: Any, given: Optional[int]) -> int:
    seed = getattr(sampler, "seed", None)
    if seed is None:
        seed = given
    if seed is None:
        generator = getattr(sampler, "generator", None)
        if generator is not None and hasattr(generator, "initial_seed"):
            seed = generator.initial_seed()
    # The server keeps a signed 64-bit long; torch's seeds are unsigned 64-bit.
    seed = int(seed or 0) & ((1 << 64) - 1)
    return seed - (1 << 64) if seed >= (1 << 63) else seed
