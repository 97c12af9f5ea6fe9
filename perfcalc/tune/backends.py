"""Where the points run: this process, a local process pool (the default), or a Ray cluster.

Every backend calls the same `run_point` with the same arguments and hands each point's rows
to `done` as it finishes, in whatever order; the table is sorted afterwards, so the order of
finishing never shows. Ray is an optional extra (`pip install 'perfcalc[ray]'`): it is imported
only when asked for, and its absence is one line naming the extra.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from perfcalc.errors import InputError
from perfcalc.tune.point import Sweep, run_point
from perfcalc.tune.space import Point

BACKENDS = ("process", "ray", "serial")
MEMORY_PER_WORKER = 1 << 30  # a point's simulation stays under this (the engine's arrays, numpy)
Done = Callable[[int, list[dict[str, Any]]], None]


def default_workers() -> int:
    """Local workers: one per core, no more than the memory holds at MEMORY_PER_WORKER each."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return max(cores, 1)
    return max(1, min(cores, memory // MEMORY_PER_WORKER))


def run_points(
    sweep: Sweep,
    todo: Sequence[tuple[int, Point]],
    done: Done,
    backend: str = "process",
    workers: int | None = None,
    address: str | None = None,
) -> None:
    """Run every (index, point) of `todo` on `backend`, calling `done(index, rows)` per point."""
    if backend not in BACKENDS:
        raise InputError(f"--backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if workers is not None and not 1 <= workers <= 4096:
        raise InputError(f"--workers {workers}: give 1 to 4096")
    if backend == "ray":
        _on_ray(sweep, todo, done, workers, address)
    elif backend == "serial" or (workers or default_workers()) == 1 or len(todo) <= 1:
        for index, point in todo:
            done(index, run_point(sweep, index, point))
    else:
        _on_pool(sweep, todo, done, workers or default_workers())


def _on_pool(sweep: Sweep, todo: Sequence[tuple[int, Point]], done: Done, workers: int) -> None:
    pending: dict[Future[list[dict[str, Any]]], int] = {}
    queue = list(todo)
    with ProcessPoolExecutor(min(workers, len(queue))) as pool:
        while queue or pending:
            while queue and len(pending) < 2 * workers:  # a bounded queue: results stream out as they come
                index, point = queue.pop(0)
                pending[pool.submit(run_point, sweep, index, point)] = index
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                done(pending.pop(future), future.result())


def _on_ray(
    sweep: Sweep, todo: Sequence[tuple[int, Point]], done: Done, workers: int | None, address: str | None
) -> None:
    try:
        import ray
    except ModuleNotFoundError:
        raise InputError(
            "--backend ray needs Ray: pip install 'perfcalc[ray]' (the process pool needs nothing extra)"
        ) from None
    started = not ray.is_initialized()
    if started:
        where = address or os.environ.get("RAY_ADDRESS")
        ray.init(
            address=where,
            num_cpus=None if where else workers,
            log_to_driver=False,
            include_dashboard=False,
            logging_level=logging.ERROR,
        )
    try:
        remote = ray.remote(_ray_point)
        shared = ray.put(sweep)
        pending = {remote.remote(shared, index, point): index for index, point in todo}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                done(pending.pop(ref), ray.get(ref))
    finally:
        if started:
            ray.shutdown()


def _ray_point(sweep: Sweep, index: int, point: Point) -> list[dict[str, Any]]:
    return run_point(sweep, index, point)
