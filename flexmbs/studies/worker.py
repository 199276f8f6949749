"""What runs on a Dask worker during a study: the case plugin and the task of one variant.

Only names and small dicts travel: a task carries the case *name*, the variant's parameter dict, the end time and
the path of its results file (the study folder must be reachable under the same path from the workers, as on a
cluster's shared file system). The worker finds the case through its own registry once (:class:`CasePlugin`, at
worker start) and keeps it; whatever the case caches itself — the clamp-locking bar reduction on disk in
``$FLEXMBS_CACHE`` and in memory per process — is built once per worker and reused by every later variant.
"""
from __future__ import annotations

import os
import signal
import socket
import threading
import time
import warnings

from distributed import WorkerPlugin

from fem.errors import FlexmbsError
from flexmbs.catalog.parameters import validate_parameters
from flexmbs.results.file_kinds import forced

__all__ = ["CasePlugin", "run_variant", "load_case", "dask_setup"]

_CASES: dict = {}


def load_case(name: str):
    """The case ``name`` from this process's registry, looked up once per process."""
    if name not in _CASES:
        from flexmbs.catalog.registry import get_case

        _CASES[name] = get_case(name)
    return _CASES[name]


class CasePlugin(WorkerPlugin):
    """Loads the case on every worker when the worker starts (and on workers that join later)."""

    def __init__(self, case_name: str):
        self.case_name = case_name
        self.name = f"flexmbs-case-{case_name}"

    def setup(self, worker):
        load_case(self.case_name)


def dask_setup(worker) -> None:
    """Dask's preload hook: a worker process of the study's local cluster ignores Ctrl-C from its start on.

    A terminal's Ctrl-C goes to the whole process group. The study's own process answers it (it stops the workers
    through their nannies within about a second and keeps every finished record); a worker killed by it printed a
    traceback on the shared stderr, and its nanny started a new one meanwhile. The short time before a worker
    process reaches this hook (its imports) stays open to Ctrl-C."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def one_line(exc: BaseException) -> str:
    """``Type: first line of the message``."""
    text = str(exc).strip().splitlines()
    message = text[0] if text else ""
    return message if isinstance(exc, FlexmbsError) else f"{type(exc).__name__}: {message}"


def run_variant(case, variant: str, params: dict, t_end: float | None, results_path: str) -> dict:
    """Run one variant; returns its record (status ``finished`` or ``failed``, ``warnings``: one line each).

    ``case`` is a registry name or a case object (a :class:`flexmbs.studies.function_case.FunctionCase`).
    A :class:`FlexmbsError` (invalid value, diverging integration, ...) is deterministic: the variant is recorded as
    failed with the one-line message. Any other exception propagates, so Dask retries the task (``retries``).
    Warnings raised by the run are kept in the record (the client prints them once, as one line each, and the
    study table has them per variant) instead of being printed raw by the worker process.
    """
    case = load_case(case) if isinstance(case, str) else case
    record = {"variant": variant, "case": case.NAME, "params": dict(params), "t_end": t_end,
              "worker": f"{socket.gethostname()}:{os.getpid()}", "results_file": os.path.basename(results_path)}
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            validate_parameters(case, dict(params))  # declared ranges, as `flexmbs run` checks them
            with forced(results_path):  # the study's own file in its runs/ folder (refused to any other writer)
                summary = case.run(dict(params), t_end, results_path, False)
            status, error = "finished", ""
        except FlexmbsError as exc:
            status, error, summary = "failed", one_line(exc), {}
    record.update(status=status, error=error, wall_s=time.perf_counter() - start, summary=summary,
                  warnings=_lines(caught))
    return record


def _lines(caught) -> list[str]:
    """Each caught warning as ``Category: message`` on one line, repeats dropped."""
    return list(dict.fromkeys(f"{item.category.__name__}: {' '.join(str(item.message).split())}" for item in caught))
