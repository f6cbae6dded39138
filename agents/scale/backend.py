"""Where work runs: in this process, in local worker processes, or on a Ray cluster, behind
one interface (``Backend``).

``Backend(kind, workers, address)``: ``kind`` is ``local`` (``workers`` spawned processes, or
this process alone when ``workers`` is 1) or ``ray`` (Ray, the field's standard engine:
``address`` empty starts a local Ray inside this process, ``auto`` joins the cluster this
machine belongs to, ``ray://HOST:PORT`` a remote one through Ray Client; ``workers`` tasks
run at once). Two ways to use it:

- ``run(fn, tasks, on_result)``: ``fn(task)`` for every task, each a plain function of its
  task (tournament blocks, dataset chunks). Results reach ``on_result(i, result)`` in task
  order (a later one that finishes first waits for the earlier ones), so what the caller
  writes is the same whatever the number of workers or the order tasks finish in. Under
  Ray a task whose worker dies (killed, out of memory, a lost node) is run again
  (``retries`` times) and delivered once; an exception raised by ``fn`` itself is not
  retried and stops the run.
- ``generators(factory)``: workers that each build ``factory()`` once (an object holding an
  agent, a network) and answer ``map(method, items)`` with ``getattr(obj, method)(item)``
  for each item, in item order (local processes, or Ray actors restarted when they die),
  every item handed to the workers when ``map`` is called (the caller goes on meanwhile) and
  every local process started and built before ``generators`` returns.
  The generic way to spread data generation (self-play batches, expert labels) over workers.
  ``processes=True`` runs even one worker in a process of its own (the trainer's actors).
  ``share(obj)`` puts an object where every worker can read it (``Shared.get()``; local
  workers read a file of the generators' own temporary folder, Ray ones the object store;
  each worker keeps what it read once): the learner's weights, its pool of past selves.
  A worker that dies mid-map (killed, out of memory) is replaced and its items are made
  again (``retries`` times), each result still yielded once and in order.

Results are only returned: the caller (the driver) writes every file, so workers on other
machines need no shared disk for what is made (files an agent reads, a checkpoint, must be
at the same path on every node). A local worker that dies stops ``run`` with a
``BackendError`` (what was written stays); a Ray cluster lost mid-run stops either with one
(``CLUSTER_LOST``). Every worker process takes one torch/numba/BLAS thread
(``WORKER_THREADS``, unless the caller's environment sets the variables): on shared cores
the workers are the parallelism and threads on top of them wait on each other.

Ray is an optional extra (``pip install 'texas42[ray]'``); without it ``kind="ray"`` says
how to install it. Functions and factories must be importable on the workers (the project
installed on every node, as ``pip install -e .`` does on one machine).
"""

from __future__ import annotations

import copy
import multiprocessing as mp
import os
import pickle
import shutil
import signal
import tempfile
import threading
import time
import uuid
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from texas42_env.config import Rule, setting

KINDS = ("local", "ray")
WORKER_THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                  "NUMBA_NUM_THREADS": "1"}
INSTALL_RAY = "Ray is not installed: pip install 'texas42[ray]' (or pip install ray)"


@dataclass
class RayConfig:
    """The ``ray`` key of a config: where the ray backend runs."""

    address: str = setting("", Rule("text", says="empty (a local Ray in this process), auto "
                                                  "(the cluster this machine is in) or "
                                                  "ray://HOST:PORT"))


class BackendError(RuntimeError):
    """The backend cannot run: Ray missing, a cluster that cannot be reached."""


def worker_env() -> dict[str, str]:
    """The thread settings a worker process starts with: one thread each, unless this
    process's environment says otherwise."""
    return {k: os.environ.get(k, v) for k, v in WORKER_THREADS.items()}


@contextmanager
def thread_settings(settings: dict[str, str]) -> Iterator[None]:
    """``settings`` in this process's environment inside, as they were after: processes
    started inside inherit them, read as their libraries load."""
    before = {k: os.environ.get(k) for k in settings}
    os.environ.update(settings)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _spawning():
    """Local worker processes started inside take ``worker_env()``'s thread settings: a
    spawned child reads its environment as torch and numba load, which is before any
    initializer of ours runs (unpickling it imports the project)."""
    return thread_settings(worker_env())


def _new_pool(workers: int, initializer: Callable, initargs: tuple) -> ProcessPoolExecutor:
    """A spawning pool of ``workers`` processes, each started and through
    ``initializer(*initargs, ready)`` before it returns (a spawning pool starts a process
    per task submitted while none is idle, and a process takes tasks once its initializer
    is done: without the wait the first to be ready plays every task and the others start,
    and compile, mid-run). Inside ``_spawning``; spawn, not fork: a forked child of a
    process whose torch thread pool has started can hang in its first matrix product."""
    ctx = mp.get_context("spawn")
    ready = ctx.Semaphore(0)
    with _spawning():
        pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=initializer,
                                   initargs=(*initargs, ready))
        futures = [pool.submit(int) for _ in range(workers)]
    try:
        for _ in range(workers):
            while not ready.acquire(timeout=0.2):
                for f in futures:
                    if f.done():
                        f.result()  # a worker that died starting: BrokenProcessPool
    except BrokenProcessPool:
        pool.shutdown(wait=False, cancel_futures=True)
        raise BackendError(LOCAL_DIED) from None
    return pool


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End ``pool`` now: the queued tasks cancelled, the worker processes terminated (their
    tasks in progress lost) rather than waited for."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # before shutdown
    pool.shutdown(wait=False, cancel_futures=True)                         # forgets them
    for p in processes:
        p.terminate()
    for p in processes:
        p.join(timeout=5)


def _submit_all(pool: ProcessPoolExecutor, fn: Callable, items: Iterable) -> list[Future]:
    """``pool.submit(fn, x)`` for each item. When a worker dies meanwhile the pool may trip
    over its own closed pipes as it starts a replacement (a ``ValueError`` or ``OSError`` from
    the spawn) before it knows it is broken: that is ``BrokenProcessPool`` too, once a task
    already submitted says so."""
    futures: list[Future] = []
    try:
        for x in items:
            futures.append(pool.submit(fn, x))
    except (ValueError, OSError):
        wait(futures, timeout=10)
        if any(f.done() and not f.cancelled() and isinstance(f.exception(), BrokenProcessPool)
               for f in futures):
            raise BrokenProcessPool("a worker process died while tasks were submitted") \
                from None
        raise
    return futures


LOCAL_DIED = ("a local worker process died (killed, out of memory, or its setup failed); "
              "what was written stays: rerun to go on")
CLUSTER_LOST = "backend ray: lost the Ray cluster mid-run ({error}); what was written stays"


def _ray_errors() -> tuple[type, ...]:
    """The errors of a Ray cluster (or its actors) gone for good."""
    import ray.exceptions  # heavy, optional: only the ray backend loads it

    return (ray.exceptions.RayActorError, ray.exceptions.RaySystemError,
            ray.exceptions.ObjectLostError, ray.exceptions.GetTimeoutError, ConnectionError)


def _lost(e: BaseException) -> BackendError:
    first = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return BackendError(CLUSTER_LOST.format(error=f"{type(e).__name__}: {first}"[:200]))


_READ: dict[str, Any] = {}  # a worker process's shared objects, by key (``Shared.get``)


@dataclass(frozen=True)
class Shared:
    """An object every worker of a ``Generators`` can read (``Generators.share``): held
    here (workers in this process), in a file (local processes) or in Ray's object store.
    ``get()`` reads it once per process and keeps it (``forget`` drops what is kept)."""

    key: str
    value: Any = None
    path: str | None = None
    ref: Any = None  # a one-item list holding the ObjectRef (so Ray passes the ref itself)

    def get(self) -> Any:
        if self.path is None and self.ref is None:
            return self.value
        if self.key not in _READ:
            if self.path is not None:
                with open(self.path, "rb") as f:
                    _READ[self.key] = pickle.load(f)
            else:
                _READ[self.key] = _ray().get(self.ref[0])
        return _READ[self.key]


def forget(keep: Iterable[str]) -> None:
    """Drop this process's kept shared objects other than ``keep``."""
    keep = set(keep)
    for key in [k for k in _READ if k not in keep]:
        del _READ[key]


def _worker_init(parent: int, ready=None) -> None:
    """A local worker process: gone within a second of its parent, even a SIGKILLed one
    (nobody would read its results); says it is ready (``_new_pool``)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()
    # Ctrl-C reaches the whole process group: the parent alone decides what stops (it
    # terminates its workers, or lets them finish an update), so a worker never turns it
    # into a failed task and goes on to the next
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if ready is not None:
        ready.release()


_HELD: dict[str, Any] = {}  # a local generator worker's object


def _hold(parent: int, factory: Callable[[], Any], ready=None) -> None:
    _worker_init(parent)
    _HELD["obj"] = factory()
    if ready is not None:
        ready.release()


def _call_held(job: tuple[str, Any]) -> Any:
    method, item = job
    return getattr(_HELD["obj"], method)(item)


def _apply(fn: Callable[[Any], Any], task: Any) -> Any:
    """A Ray task: ``fn(task)`` (any picklable callable: a function, a partial)."""
    return fn(task)


class _RayHolder:
    """A Ray actor holding ``factory()`` (see ``Backend.generators``)."""

    def __init__(self, factory: Callable[[], Any]):
        self.obj = factory()

    def call(self, method: str, item: Any) -> Any:
        return getattr(self.obj, method)(item)


def _ray():
    try:
        import ray  # heavy, optional: only the ray backend loads it
    except ImportError:
        raise BackendError(INSTALL_RAY) from None
    return ray


class Backend:
    """Local processes or Ray (see the module)."""

    def __init__(self, kind: str = "local", workers: int = 1, address: str = "",
                 retries: int = 3):
        if kind not in KINDS:
            raise ValueError(f"backend: {kind!r}; allowed: {', '.join(KINDS)}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers: a whole number of at least 1, got {workers!r}")
        self.kind, self.workers, self.address, self.retries = kind, workers, address, retries
        if kind == "ray":
            self._connect()

    def __repr__(self) -> str:
        where = f", address {self.address!r}" if self.kind == "ray" else ""
        return f"Backend({self.kind}, {self.workers} workers{where})"

    # ------------------------------------------------------------------ ray
    def _connect(self) -> None:
        ray = _ray()
        if ray.is_initialized():
            here = ray.get_runtime_context().gcs_address
            # a node may name itself by another address than the one joined (127.0.0.1):
            # the port tells clusters apart
            if self.address not in ("", "auto") and not self.address.startswith("ray://") \
                    and self.address.rpartition(":")[2] != here.rpartition(":")[2]:
                raise BackendError(f"backend ray: this process is connected to Ray at {here}, "
                                   f"not {self.address}")
            return
        env = {"env_vars": worker_env()}
        try:
            if self.address or os.environ.get("RAY_ADDRESS"):  # a cluster (a job's own too)
                ray.init(address=self.address or None, runtime_env=env, log_to_driver=False)
            else:  # a local Ray in this process (every core; ``workers`` tasks at a time)
                cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
                    else os.cpu_count() or 1
                ray.init(num_cpus=max(self.workers, cores), runtime_env=env,
                         include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise BackendError(f"backend ray: cannot reach Ray at "
                               f"{self.address or 'a new local instance'}: {e}") from None

    def _ray_run(self, fn, tasks, on_result) -> None:
        ray = _ray()
        remote = ray.remote(num_cpus=1, max_retries=self.retries,
                            retry_exceptions=False)(_apply)
        pending: dict[Any, int] = {}
        ready: dict[int, Any] = {}
        nxt = sent = 0
        window = 4 * self.workers  # results held for a slow earlier task: at most this many
        while nxt < len(tasks):
            while sent < len(tasks) and len(pending) < self.workers and sent < nxt + window:
                pending[remote.remote(fn, tasks[sent])] = sent
                sent += 1
            try:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    ready[pending.pop(ref)] = ray.get(ref)  # re-raises the task's own error
            except _ray_errors() as e:
                raise _lost(e) from None
            except KeyboardInterrupt:  # Ctrl-C: the tasks in flight are stopped, not awaited
                for ref in pending:
                    ray.cancel(ref, force=True)
                raise
            while nxt in ready:
                on_result(nxt, ready.pop(nxt))
                nxt += 1

    # ------------------------------------------------------------------ the interface
    def run(self, fn: Callable[[Any], Any], tasks: Sequence[Any],
            on_result: Callable[[int, Any], None]) -> None:
        """``on_result(i, fn(tasks[i]))`` for every task, in task order (see the module)."""
        tasks = list(tasks)
        if not tasks:
            return
        if self.kind == "ray":
            return self._ray_run(fn, tasks, on_result)
        if self.workers == 1 or len(tasks) == 1:
            for i, task in enumerate(tasks):
                on_result(i, fn(task))
            return
        pool = _new_pool(min(self.workers, len(tasks)), _worker_init, (os.getpid(),))
        with pool:
            futures = []
            try:
                futures = _submit_all(pool, fn, tasks)
                for i, f in enumerate(futures):
                    on_result(i, f.result())
            except BrokenProcessPool:
                raise BackendError(LOCAL_DIED) from None
            except KeyboardInterrupt:  # Ctrl-C: the tasks in progress are not waited for
                _stop_workers(pool)
                raise
            finally:
                for f in futures:
                    f.cancel()

    def generators(self, factory: Callable[[], Any], processes: bool = False) -> "Generators":
        """Workers each holding ``factory()``, answering ``map`` (see the module);
        ``processes``: even one local worker in a process of its own."""
        return Generators(self, factory, processes)


class Generators:
    """``Backend.generators``: ``map(method, items)`` yields ``obj.method(item)`` in item
    order; ``share``/``release`` objects for the workers; ``close()`` (or a ``with`` block)
    stops the workers."""

    def __init__(self, backend: Backend, factory: Callable[[], Any], processes: bool = False):
        self.backend = backend
        self.factory = factory
        self._pool = self._local = self._actors = None
        self._folder: str | None = None  # local processes: the shared objects' files
        if backend.kind == "ray":
            ray = _ray()
            try:
                cpus = ray.cluster_resources().get("CPU", 0)
            except _ray_errors() as e:
                raise _lost(e) from None
            if cpus < backend.workers:
                raise BackendError(f"backend ray: {backend.workers} workers hold a CPU each, "
                                   f"the cluster has {cpus:g}")
            holder = ray.remote(num_cpus=1, max_restarts=backend.retries,
                                max_task_retries=backend.retries)(_RayHolder)
            self._actors = [holder.remote(factory) for _ in range(backend.workers)]
        elif backend.workers == 1 and not processes:
            self._local = factory()
        else:
            self._pool = self._start_pool()
            self._folder = tempfile.mkdtemp(prefix="texas42-shared-")

    def _start_pool(self) -> ProcessPoolExecutor:
        return _new_pool(self.backend.workers, _hold, (os.getpid(), self.factory))

    def share(self, obj: Any) -> Shared:
        """``obj`` put where every worker can read it (see ``Shared``)."""
        key = uuid.uuid4().hex
        if self._actors is not None:
            try:
                return Shared(key, ref=[_ray().put(obj)])
            except _ray_errors() as e:
                raise _lost(e) from None
        if self._folder is not None:
            path = os.path.join(self._folder, key)
            with open(path, "wb") as f:
                pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
            return Shared(key, path=path)
        return Shared(key, value=obj)

    def release(self, shared: Shared) -> None:
        """Free what ``share`` took for ``shared`` (workers reading it later fail)."""
        if shared.path is not None:
            try:
                os.unlink(shared.path)
            except FileNotFoundError:
                pass

    def map(self, method: str, items: Iterable[Any]) -> Iterator[Any]:
        """``obj.method(item)`` for each item, yielded in item order; every item is handed
        to the workers at once (local processes, Ray actors: the results are made while
        the caller goes on, until it reads them); with a worker in this process each is
        made as it is read."""
        items = list(items)
        if self._pool is not None:
            try:
                futures = _submit_all(self._pool, _call_held, [(method, x) for x in items])
            except BrokenProcessPool:
                futures = None  # made again by _local_map, which says so
            return self._local_map(method, items, futures)
        if self._actors is not None:
            actors = self._actors
            try:  # round robin: each actor runs its calls in turn
                refs = [actors[i % len(actors)].call.remote(method, x)
                        for i, x in enumerate(items)]
            except _ray_errors() as e:
                raise _lost(e) from None
            return self._ray_results(refs)
        return (getattr(self._local, method)(item) for item in items)

    @staticmethod
    def _ray_results(refs: list) -> Iterator[Any]:
        ray = _ray()
        try:
            for ref in refs:
                # arrays of our own, not read-only views into Ray's object store
                yield copy.deepcopy(ray.get(ref))
        except _ray_errors() as e:
            raise _lost(e) from None

    def _local_map(self, method: str, items: list,
                   futures: list[Future] | None) -> Iterator[Any]:
        """``map``'s results on local processes (``futures``: the items' as submitted, or
        None): a worker that dies is replaced (a new pool) and the items not yet yielded
        are made again, ``retries`` times at most."""
        done = 0
        for attempt in range(self.backend.retries + 1):
            try:
                if futures is None:
                    futures = _submit_all(self._pool, _call_held,
                                          [(method, x) for x in items[done:]])
                for f in futures:
                    result = f.result()
                    done += 1
                    yield result
                return
            except BrokenProcessPool:
                futures = None
                self._pool.shutdown(wait=False, cancel_futures=True)
                if attempt == self.backend.retries:
                    raise BackendError(LOCAL_DIED) from None
                print(f"backend: a local worker process died; starting another and making "
                      f"its work again ({len(items) - done} items)", flush=True)
                self._pool = self._start_pool()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
        if self._actors is not None:
            ray = _ray()
            for actor in self._actors:
                try:
                    ray.kill(actor)
                except _ray_errors():
                    pass  # the cluster is gone: nothing to stop
            self._actors = None
        self._local = None

    def __enter__(self) -> "Generators":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = ["Backend", "BackendError", "CLUSTER_LOST", "Generators", "KINDS", "RayConfig",
           "Shared", "WORKER_THREADS", "forget", "thread_settings", "worker_env"]
