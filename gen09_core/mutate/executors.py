"""Choosing where jobs run: the executor a command's options (or ``[limits]``) name."""

from __future__ import annotations

from collections.abc import Callable

from gen09_core.mutate.executor import LocalExecutor


def make_executor(kind: str = "local", workers: int = 2, address: str | None = None, max_retries: int = 2,
                  memory_mb: int | None = None, notify: Callable | None = None):
    """The executor ``kind`` names: ``local`` (``workers`` jobs at once here) or ``ray`` (a
    Ray cluster at ``address``; ``BadInput`` naming the extra when Ray is not installed)."""
    if kind == "local":
        return LocalExecutor(workers)
    if kind == "ray":
        from gen09_core.mutate.executor_ray import RayExecutor

        return RayExecutor(address, max_retries=max_retries, memory_mb=memory_mb, notify=notify)
    from gen09_core.errors import BadInput

    raise BadInput(f"unknown executor {kind!r} (known: local, ray)")
