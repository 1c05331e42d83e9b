"""Splitting a compiled kernel's work over the cores with plain threads.

The numba kernels release the GIL (``nogil=True``), so a few Python threads each
running one on its own slice of the rows (or columns) use every core, with no
dependence on numba's threading layers (which may not be safe to call from several
threads at once, as Dask's threaded scheduler or a thread-pool grid search do).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import numpy as np

__all__ = [
    "available_cores",
    "in_chunks",
    "map_on_cores",
    "one_task_of_a_pool",
    "single_threaded_blas",
    "with_caller_config",
]


def available_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def in_chunks(
    run: Callable[[int, int], None],
    n_items: int,
    work: int,
    min_work: int,
) -> None:
    """``run(start, stop)`` over ``0..n_items`` in contiguous chunks on every core, or
    in one call when the total ``work`` (any unit) is below ``2 * min_work``: threads
    only pay when each has at least ``min_work`` to do.

    The chunks run on a pool of one thread per core shared by the whole process
    (starting threads for every call costs more than small kernels); ``run`` is called
    on the pool's threads, where a nested ``in_chunks`` runs in one call.

    Examples
    --------
    >>> seen = []
    >>> in_chunks(lambda a, b: seen.append((a, b)), 10, work=10, min_work=100)
    >>> seen
    [(0, 10)]
    >>> seen = []
    >>> in_chunks(lambda a, b: seen.append((a, b)), 10, work=10**9, min_work=1)
    >>> sorted(seen)[0][0], sorted(seen)[-1][1]
    (0, 10)
    """
    n_threads = min(available_cores(), n_items, work // max(min_work, 1))
    if n_threads < 2 or getattr(_local, "inner", False):  # already one task of a pool
        run(0, n_items)
        return
    bounds = np.linspace(0, n_items, n_threads + 1).astype(np.intp).tolist()
    list(_shared_pool().map(run, bounds[:-1], bounds[1:]))


def map_on_cores(run: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
    """``[run(item) for item in items]``, the items taken by the shared pool's threads
    (one per core) under the caller's configuration (:func:`with_caller_config`), with
    the :func:`in_chunks` inside each on its own thread; in order. Serially when called
    from a task of a pool (no threads within threads) or with one core.

    Examples
    --------
    >>> map_on_cores(lambda k: k * k, range(5))
    [0, 1, 4, 9, 16]
    """
    if available_cores() < 2 or getattr(_local, "inner", False):
        return [run(item) for item in items]
    return list(_shared_pool().map(with_caller_config(run), items))


def one_task_of_a_pool(run: Callable[[], Any]) -> Callable[[], Any]:
    """``run`` made a task of a pool of the caller's (threads, as many as the cores at
    most, each taking one task at a time): under the caller's configuration
    (:func:`with_caller_config`), and with what it would split over the cores
    (:func:`in_chunks`, :func:`map_on_cores`) run on its own thread, as in a task of the
    shared pool: the pool already keeps the cores busy, and threads within threads
    would take more threads than cores. The kernels that split their work give the
    same result on any number of threads, so the task's result is unchanged.

    Examples
    --------
    >>> seen = []
    >>> task = one_task_of_a_pool(lambda: in_chunks(lambda a, b: seen.append((a, b)), 10, 10**9, 1))
    >>> task()
    >>> seen
    [(0, 10)]
    """
    configured = with_caller_config(run)

    def task() -> Any:
        outer = getattr(_local, "inner", False)
        _local.inner = True
        try:
            return configured()
        finally:
            _local.inner = outer

    return task


_pool: ThreadPoolExecutor | None = None
_pool_pid = -1
_pool_lock = threading.Lock()


def _shared_pool() -> ThreadPoolExecutor:
    """The process's pool of one thread per core for :func:`in_chunks` (made again in a
    forked child, which inherits the object but not its threads)."""
    global _pool, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid():
            _pool = ThreadPoolExecutor(
                available_cores(), thread_name_prefix="discotree", initializer=_mark_inner
            )
            _pool_pid = os.getpid()
        return _pool


def _mark_inner() -> None:
    _local.inner = True


_local = threading.local()


def with_caller_config(run: Callable[..., Any]) -> Callable[..., Any]:
    """``run`` under the calling thread's configuration (:func:`discotree.get_config`
    is per thread, as scikit-learn's): for work handed to other threads that reads it
    (memory limits, warnings).

    Examples
    --------
    >>> from discotree import config_context, get_config
    >>> with config_context(memory_limit=123):
    ...     read = with_caller_config(lambda: get_config()["memory_limit"])
    >>> with ThreadPoolExecutor(1) as pool:
    ...     pool.submit(read).result()
    123
    """
    from .config import config_context, get_config

    config = get_config()

    def configured(*args: Any, **kwargs: Any) -> Any:
        with config_context(**config):
            return run(*args, **kwargs)

    return configured


_blas_lock = threading.Lock()
_blas_owner: threading.Thread | None = None
_blas_depth = 0
_blas_limit: Any = None
_blas_controller: Any = None


@contextmanager
def single_threaded_blas() -> Iterator[bool]:
    """BLAS on one thread while the block runs, for work that splits itself over the
    cores (several threads each calling BLAS on its own slice); yields whether this
    thread holds the limit, i.e. whether it should split its work.

    OpenBLAS splits each call statically over its threads and keeps them spinning
    after it returns, so two levels of threads would fight for the cores. The limit
    is process-wide (it is BLAS's own setting) and covers the BLAS libraries loaded at
    the first call (numpy's among them). threadpoolctl lets only one thread (the first
    that set a limit, usually the main one) change OpenBLAS's setting, so one thread
    at a time holds the limit and restores it when its outermost block ends; in any
    other thread meanwhile, or where the setting cannot be changed, the block sees
    ``False`` and nothing changes.

    Examples
    --------
    >>> import numpy as np
    >>> with single_threaded_blas() as split:
    ...     float(np.ones((2, 2)) @ np.ones(2) @ np.ones(2))
    4.0
    """
    global _blas_owner, _blas_depth, _blas_limit, _blas_controller
    this = threading.current_thread()
    with _blas_lock:
        if _blas_owner is None:
            from threadpoolctl import ThreadpoolController

            if _blas_controller is None:  # inspecting the loaded libraries costs ms
                _blas_controller = ThreadpoolController().select(user_api="blas")
            limit = _blas_controller.limit(limits=1)
            if all(info["num_threads"] == 1 for info in _blas_controller.info()):
                _blas_owner, _blas_limit = this, limit
            else:  # threadpoolctl left the setting to another thread
                limit.restore_original_limits()
        holds = _blas_owner is this
        if holds:
            _blas_depth += 1
    try:
        yield holds
    finally:
        if holds:
            with _blas_lock:
                _blas_depth -= 1
                if _blas_depth == 0:
                    _blas_limit.restore_original_limits()
                    _blas_owner = _blas_limit = None
