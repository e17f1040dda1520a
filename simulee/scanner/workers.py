"""Running a scan's tasks in isolated worker processes, each with a timeout and a memory
cap, on this machine (a Pebble process pool) or on a Dask distributed cluster (each Dask
worker runs its tasks in such a pool of its own).

A task is a picklable object; `function(task)` returns its record (a dict). Whatever
happens to the worker, a task ends in a record: `failed(status, message)` of the task
when it timed out, ran out of memory or its process died.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import signal
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """What one task may use: seconds of wall time (a kernel's check; compiling a file and
    reading its host code, for the tasks that say they compile), bytes of address space
    (0: no cap)."""

    seconds: float = 120.0
    memory: int = 8 << 30
    compile_seconds: float = 300.0

    def of(self, task) -> tuple[float, str]:
        """The seconds `task` may take, and the option that sets them."""
        if getattr(task, "compiles", False):
            return self.compile_seconds, "--compile-timeout"
        return self.seconds, "--kernel-timeout"


class Pool:
    """Runs tasks on `jobs` local worker processes (or, given a Dask scheduler address or
    "local", on a Dask cluster). `submit` returns a concurrent.futures.Future of the
    task's record; use it as a context manager."""

    def __init__(self, jobs: int, limits: Limits, scheduler: str | None = None):
        self.limits = limits
        self.jobs = jobs
        self.scheduler = scheduler
        self._pebble = self._client = self._cluster = self._executor = None

    def __enter__(self) -> Pool:
        if self.scheduler is None:
            self._pebble = _pebble_pool(self.jobs, self.limits)
        else:
            self._client, self._cluster = _dask_client(self.scheduler, self.jobs)
            self._executor = self._client.get_executor(pure=False)
        return self

    def __exit__(self, kind, *exc) -> None:
        if self._pebble is not None:
            if kind is None:  # everything finished
                self._pebble.close()
            else:  # interrupted: stop the tasks still running
                self._pebble.stop()
            self._pebble.join()
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def submit(self, function, task) -> Future:
        if self._pebble is not None:
            return _Settled(self._pebble.schedule(function, args=(task,), timeout=self.limits.of(task)[0]),
                            task, self.limits)
        return self._executor.submit(run_isolated, function, task, self.limits)

    def describe(self) -> str:
        if self.scheduler is None:
            return f"{self.jobs} worker process{'es' if self.jobs != 1 else ''}"
        workers = len(self._client.scheduler_info().get("workers", {}))
        return f"Dask scheduler {self._client.scheduler.address} ({workers} worker{'s' if workers != 1 else ''})"


class _Settled(Future):
    """A pool future whose result is always a record: a timeout, a dead worker or an
    exception become the task's failed record."""

    def __init__(self, inner: Future, task, limits: Limits):
        super().__init__()
        inner.add_done_callback(lambda done: self.set_result(settle(done, task, limits)))


def settle(future: Future, task, limits: Limits) -> dict:
    """The record of a finished pool future."""
    from pebble import ProcessExpired

    try:
        return future.result()
    except FutureTimeout:
        seconds, option = limits.of(task)
        return task.failed("timeout", f"no result after {seconds:g} s ({option})", seconds)
    except ProcessExpired as error:
        if error.exitcode == -signal.SIGKILL:
            return task.failed("out-of-memory", "the worker was killed (out of memory?)")
        return task.failed("crashed", f"the worker process died (exit code {error.exitcode})")
    except MemoryError:
        return task.failed("out-of-memory", f"more than {limits.memory >> 20} MiB (--memory-limit)")
    except Exception as error:
        return task.failed("error", f"internal error: {type(error).__name__}: {error}")


def prepare_worker(limit: int) -> None:
    """In a new worker: cap its address space at `limit` bytes (0: no cap), so a runaway
    analysis fails with MemoryError instead of taking the machine down, and when the pool
    stops it (a task past its time), stop its compiler first."""
    if limit:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    signal.signal(signal.SIGTERM, _stopped)


def _stopped(signum, frame) -> None:
    from simulee.frontend.compiler import stop_compilers

    stop_compilers()
    os._exit(128 + signum)


def _pebble_pool(jobs: int, limits: Limits):
    from pebble import ProcessPool

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["simulee.scanner.tasks"])
    return ProcessPool(max_workers=jobs, max_tasks=50, initializer=prepare_worker, initargs=(limits.memory,),
                       context=context)


# ---------------------------------------------------------------------------- Dask


def _dask_client(scheduler: str, jobs: int):
    """A client of the scheduler at `scheduler`, or of a LocalCluster of `jobs`
    one-thread workers on loopback when it is "local"."""
    import dask
    from distributed import Client, LocalCluster

    from simulee.errors import SimuleeError

    if scheduler == "local":
        # workers that may start the processes run_isolated runs tasks in
        with dask.config.set({"distributed.worker.daemon": False}):
            cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout="10s"), None
    except (OSError, TimeoutError) as error:
        raise SimuleeError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None


_worker_pool = None


def run_isolated(function, task, limits: Limits) -> dict:
    """On a Dask worker: run the task in this worker's own process pool, with the limits,
    and return its record. A daemonic worker (one started without
    DASK_DISTRIBUTED__WORKER__DAEMON=False) cannot start processes: it runs the task
    itself, without the timeout or the memory cap."""
    global _worker_pool
    if multiprocessing.current_process().daemon:
        return function(task)
    if _worker_pool is None:
        _worker_pool = _pebble_pool(_worker_threads(), limits)
    return settle(_worker_pool.schedule(function, args=(task,), timeout=limits.of(task)[0]), task, limits)


def _worker_threads() -> int:
    try:
        from distributed import get_worker

        return get_worker().state.nthreads
    except (ImportError, ValueError, AttributeError):
        return os.cpu_count() or 1

