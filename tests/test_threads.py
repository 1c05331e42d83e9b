"""The shared thread pool of ``discotree.threads``: reused, safe to nest, fork-safe."""

import os
import select
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from discotree import threads as _threads
from discotree.threads import in_chunks, map_on_cores, one_task_of_a_pool


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(_threads, "available_cores", lambda: 2)


def _spans_and_threads(n_items=10):
    seen = []
    in_chunks(
        lambda a, b: seen.append((a, b, threading.current_thread().name)),
        n_items,
        work=10**9,
        min_work=1,
    )
    return sorted(seen)


def test_chunks_cover_the_items_once_on_pool_threads(two_cores):
    seen = _spans_and_threads()
    assert [(a, b) for a, b, _ in seen] == [(0, 5), (5, 10)]
    assert all(name.startswith("discotree") for _, _, name in seen)


def _pool_threads():
    return {t for t in threading.enumerate() if t.name.startswith("discotree")}


def test_the_pool_is_reused_between_calls(two_cores):
    _spans_and_threads()
    before = _pool_threads()
    assert before
    for _ in range(20):
        _spans_and_threads()
    assert _pool_threads() == before  # no new threads per call


def test_nested_chunks_run_inline_on_the_pool_threads(two_cores):
    inner = []

    def outer(start, stop):
        in_chunks(lambda a, b: inner.append((a, b)), 4, work=10**9, min_work=1)

    done = []
    worker = threading.Thread(
        target=lambda: done.append(in_chunks(outer, 2, work=10**9, min_work=1))
    )
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "nested in_chunks deadlocked the shared pool"
    assert sorted(inner) == [(0, 4), (0, 4)]  # each outer chunk ran its inner one inline


def test_map_on_cores_keeps_order_and_config_and_runs_nested_maps_inline(two_cores):
    from discotree import config_context, get_config

    def task(k):
        inner = map_on_cores(lambda _: threading.current_thread().name, range(3))
        return k, get_config()["memory_limit"], inner

    with config_context(memory_limit=12345):
        results = map_on_cores(task, range(6))
    assert [k for k, _, _ in results] == list(range(6))
    assert all(limit == 12345 for _, limit, _ in results)  # the caller's configuration
    for _, _, names in results:  # nested: all on the task's own thread
        assert len(set(names)) == 1 and names[0].startswith("discotree")
    marks = [_threads._shared_pool().submit(lambda: _threads._local.inner) for _ in range(8)]
    assert all(m.result() for m in marks)
    with ThreadPoolExecutor(1) as other:  # threads of other pools are not marked
        assert not other.submit(lambda: getattr(_threads._local, "inner", False)).result()


def test_a_task_of_another_pool_runs_its_splits_inline_under_the_callers_config(two_cores):
    """one_task_of_a_pool (the kDB ensemble's joblib tasks): the caller's configuration,
    in_chunks and map_on_cores on the task's own thread (no threads within threads,
    nothing waits for the shared pool), and the thread unmarked afterwards."""
    from joblib import Parallel, delayed

    from discotree import config_context, get_config

    def work():
        here = threading.current_thread().name
        names = map_on_cores(lambda _: threading.current_thread().name, range(4))
        spans = []
        in_chunks(lambda a, b: spans.append((a, b)), 10, work=10**9, min_work=1)
        return here, names, spans, get_config()["memory_limit"]

    with config_context(memory_limit=4321):
        tasks = [one_task_of_a_pool(work) for _ in range(6)]
    results = Parallel(n_jobs=2, prefer="threads")(delayed(task)() for task in tasks)
    for here, names, spans, limit in results:
        assert set(names) == {here} and not here.startswith("discotree")
        assert spans == [(0, 10)] and limit == 4321
    assert not getattr(_threads._local, "inner", False)  # (the caller's thread)
    seen = _spans_and_threads()  # and the shared pool still splits outside a task
    assert [(a, b) for a, b, _ in seen] == [(0, 5), (5, 10)]


def test_an_error_in_a_chunk_is_raised_in_the_caller(two_cores):
    def fail(start, stop):
        if start:
            raise RuntimeError("chunk failed")

    with pytest.raises(RuntimeError, match="chunk failed"):
        in_chunks(fail, 10, work=10**9, min_work=1)
    assert len(_spans_and_threads()) == 2  # the pool still works


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_gets_its_own_pool(two_cores):
    _spans_and_threads()  # the parent's pool exists with its threads
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the inherited pool has no threads; a new one is made
        try:
            ok = [(a, b) for a, b, _ in _spans_and_threads()] == [(0, 5), (5, 10)]
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], 60)
    if not ready:  # the child hangs: stop it and fail
        os.kill(pid, signal.SIGKILL)
    answer = os.read(read, 1) if ready else b""
    os.close(read)
    os.waitpid(pid, 0)
    assert answer == b"1"
