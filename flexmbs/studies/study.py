"""Parameter studies on Dask: every variant of a case is one task on a ``dask.distributed`` cluster.

``study(case, variations)`` runs a design (grid, zip or Latin hypercube, :mod:`flexmbs.studies.design`) of a case on a
``LocalCluster`` of worker processes (one per core by default) or on an existing cluster (scheduler address, or a
``client``), and keeps everything in one folder::

    STUDY_DIR/study.json            manifest: case, software versions, design, variations, fixed parameters, variants
    STUDY_DIR/runs/<id>.results.h5  the results file of each variant (written by the worker)
    STUDY_DIR/runs/<id>.json        the record of each variant: parameters, status, one-line error, wall time, summary
    STUDY_DIR/table.parquet, .csv   one row per variant: varied parameters, status, error, wall time, scalar outputs
    STUDY_DIR/report.md             the case's own report (optional hook ``study_report(table, manifest)``)

A variant is finished once its record says so; re-running the same study skips finished variants (``<id>`` hashes
the case, the parameters and the end time) and runs the failed and missing ones. Records are written by the client
as results arrive, atomically, so Ctrl-C keeps every finished run (acted on at safe points, :class:`_CtrlC`; the study
then stops its workers, writes its table and raises :class:`StudyInterrupted`: ``flexmbs study`` prints one line,
exit 130). See docs/studies.md.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import html
import importlib.util
import json
import logging
import os
import platform
import shutil
import signal
import sys
import tempfile
import threading
import time
import types
import uuid
import warnings

import numpy as np

from fem.errors import FlexmbsError, ModelError

from flexmbs.catalog.registry import get_case, typed_parameters
from .design import design_variants, parse_design, variant_id
from flexmbs.results.safe_files import atomic_output, json_default, open_output

__all__ = ["study", "StudyResult", "StudyInterrupted", "load_table", "load_manifest", "check_variants",
           "check_workers"]

FORMAT_NAME = "flexmbs-study"
FORMAT_VERSION = 1
MANIFEST = "study.json"
RUNS = "runs"
META = ("variant", "status", "error", "wall_s", "steps", "t_end", "max_constraint_violation", "results_file",
        "worker", "warnings")
DASHBOARD_PORT = 8787  # Dask's usual dashboard port; when another cluster holds it, Dask picks a free one


class StudyInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a study; the message says what was kept (every finished variant's record and results file, and
    the table) and what the next run of the same study runs."""


class _CtrlC:
    """While the block runs, Ctrl-C (SIGINT) is only counted; :meth:`check` raises ``KeyboardInterrupt`` at the
    caller's safe points. Python's own handler raises wherever the main thread happens to be, which cut Dask's
    cluster start-up or close in the middle (tracebacks of half-closed clusters at exit, a close waiting 10 s
    more) and could be lost in code that waits for Dask. Installed only in the main thread over Python's default
    handler (an ignored SIGINT, e.g. in a background job, or another program's handler stays as it is); the previous
    handler is restored on leaving the block."""

    def __init__(self):
        self.count = 0
        self._previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous = signal.signal(signal.SIGINT, self._note)
        return self

    def _note(self, signum, frame) -> None:
        self.count += 1

    def check(self) -> None:
        if self.count:
            raise KeyboardInterrupt

    def __exit__(self, *exc) -> bool:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False


class StudyResult:
    """What a study did.

    Attributes
    ----------
    path : str                  the study folder
    case : str
    table : pandas.DataFrame    one row per variant that ran (finished or failed)
    n_variants, n_finished, n_failed, n_skipped, n_pending : int
        ``n_skipped``: finished in an earlier run; ``n_pending``: not run (interrupted)
    scheduler, dashboard : str or None   address of the Dask scheduler and its dashboard, if one was used
    report : str or None        the case's report file
    """

    def __init__(self, **fields):
        self.__dict__.update(fields)

    @property
    def success(self) -> bool:
        return self.n_failed == 0 and self.n_pending == 0

    def __repr__(self) -> str:
        return (f"StudyResult({self.case!r}, {self.n_variants} variants: {self.n_finished} finished "
                f"({self.n_skipped} earlier), {self.n_failed} failed, {self.n_pending} pending; {self.path})")

    def _repr_html_(self) -> str:
        table = self.table.head(20).to_html(index=False) if getattr(self, "table", None) is not None else ""
        return f"<p>{html.escape(repr(self))}</p>{table}"


def _write_json(path: str, payload: dict) -> None:
    """Atomic: a temporary file, then rename (a full disk: one line, the previous file unchanged)."""
    with atomic_output(path, "study file", force=True) as tmp, open_output(tmp, "w") as handle:
        json.dump(payload, handle, indent=1, default=json_default)


def check_variants(case, fixed: dict, variants: list) -> None:
    """The check ``flexmbs run`` makes, for every variant before any work (issue 30): values that are not
    numbers where numbers are expected, NaN, infinity, fractions for counts and values outside the declared
    ranges are one line naming the parameter."""
    from flexmbs.catalog.parameters import validate_parameters

    validate_parameters(case, fixed)
    # a case package's own parameters(overrides) checks its choices (drive = speed|torque, scenario names, ...):
    # a variant it refuses is one line before any run, not a failed variant after the others ran (issue 43)
    own = getattr(case, "parameters", None) if isinstance(case, types.ModuleType) else None
    for _, params, error in variants:
        if error:
            raise ModelError(error)
        validate_parameters(case, params)
        if callable(own):
            try:
                own({**fixed, **params})
            except ModelError as exc:
                raise ModelError(f"{exc} (--vary {', '.join(f'{k}={v}' for k, v in params.items())})") from None
            except Exception:  # noqa: BLE001  anything else is the run's to report
                pass


def check_workers(workers) -> int | None:
    """A worker count of at most 4 × the cores (each worker is a process of ~150 MB and more)."""
    if workers is None:
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    limit = max(4 * cores, 4)
    if not (isinstance(workers, (int, np.integer)) and 1 <= workers <= limit):
        raise ModelError(f"workers must be a whole number in 1..{limit} (4 per core on this machine, each a "
                         f"process of ~150 MB), got {workers!r}")
    return int(workers)


def _software() -> dict:
    import dask
    import distributed
    import scipy

    from flexmbs._version import __version__

    return {"flexmbs": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "dask": dask.__version__, "distributed": distributed.__version__,
            "platform": platform.platform()}


def load_manifest(path: str) -> dict:
    """The manifest ``study.json`` of a study folder."""
    file = os.path.join(path, MANIFEST)
    if not os.path.isfile(file):
        raise FlexmbsError(f"{path!r} is not a study folder (no {MANIFEST}); run `flexmbs study` first")
    try:
        with open(file, encoding="utf-8") as handle:
            manifest = json.load(handle)
    except (OSError, ValueError) as exc:
        raise FlexmbsError(f"{file!r} cannot be read as a study manifest ({type(exc).__name__}: "
                           f"{str(exc).splitlines()[0][:120]}); it is damaged or not a study's: run `flexmbs study` "
                           "into a new folder") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise FlexmbsError(f"{file!r} is not the manifest of a flexmbs study (no format {FORMAT_NAME!r}); "
                           f"{path!r} is not a study folder")
    return manifest


def load_table(path: str):
    """The study table (pandas.DataFrame) of a study folder."""
    import pandas as pd

    file = os.path.join(path, "table.parquet")
    if not os.path.isfile(file):
        raise FlexmbsError(f"no study table in {path!r} (table.parquet); run `flexmbs study` first")
    check_table_writer()
    try:
        return pd.read_parquet(file)
    except (OSError, ValueError, ImportError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise FlexmbsError(f"the study table {file!r} cannot be read ({str(exc).splitlines()[0][:160]}): it is "
                           "cut or damaged; run the study again into its folder to rewrite it") from None


# what a re-run must repeat to continue a study in the same folder, with the words the command line uses
_DESIGN_KEYS = (("variations", "varied values (--vary)"), ("fixed", "fixed parameters (--set)"),
                ("t_end", "end time (--t-end)"), ("design", "design (--design)"),
                ("samples", "sample count (--design lhs:N)"), ("seed", "seed (--seed)"))
_STUDY_FILES = (MANIFEST, "table.parquet", "table.csv", "report.md", RUNS)


def check_table_writer() -> None:
    """The study table is Parquet: its writer (pyarrow) must be there before any variant runs."""
    if importlib.util.find_spec("pyarrow") is None and importlib.util.find_spec("fastparquet") is None:
        raise FlexmbsError("a study writes its table as Parquet, which needs pyarrow (a dependency of flexmbs that "
                           "is not installed here): pip install pyarrow, then run the study again")


def check_study_folder(out: str, manifest: dict) -> None:
    """A study continues only the study of the same design in its folder; it never takes over a folder holding
    other files of its names (``study.json`` that is not a study manifest, ``table.csv``, ...). One line naming the
    difference, before any work."""
    from flexmbs.results.file_kinds import is_study_manifest, study_folder_of

    if os.path.exists(out) and not os.path.isdir(out):
        raise ModelError(f"study folder {out!r} is a file; choose another -o folder")
    parent = study_folder_of(out)  # issue 43: `study -o STUDY/runs` ran a study inside another's runs/
    if parent is not None and os.path.abspath(parent) != os.path.abspath(out):
        raise ModelError(f"{out!r} lies in the study folder {parent!r} and would change that study; choose another "
                         "-o folder")
    file = os.path.join(out, MANIFEST)
    if not os.path.exists(file):
        taken = [name for name in _STUDY_FILES if os.path.exists(os.path.join(out, name))
                 and not (name == RUNS and not os.listdir(os.path.join(out, name)))]
        if taken:
            raise ModelError(f"{out!r} is not a study folder but holds {', '.join(taken)}, which a study would "
                             "replace; choose another -o folder")
        return
    if not is_study_manifest(file):
        raise ModelError(f"{file!r} is not the manifest of a flexmbs study (another file named {MANIFEST}); a study "
                         "would replace it: choose another -o folder")
    old = load_manifest(out)
    if old.get("case") != manifest["case"]:
        raise ModelError(f"{out!r} holds a study of case {old.get('case')!r}; choose another -o folder")
    for key, words in _DESIGN_KEYS:
        before, now = _plain_json(old.get(key)), _plain_json(manifest.get(key))
        if before != now:
            raise ModelError(f"{out!r} holds a study of {manifest['case']} with different {words}: {_shown(before)} "
                             f"there, {_shown(now)} now; re-run it as it was to continue it, or choose another -o "
                             "folder for the new study")


def _plain_json(value):
    """``value`` as it reads back from the manifest (tuples as lists, numpy numbers as numbers)."""
    return json.loads(json.dumps(value, default=json_default))


def _shown(value) -> str:
    if value is None:
        return "the case's default"
    text = json.dumps(value, default=json_default)
    return text if len(text) <= 120 else text[:117] + "..."


def _finished_file(path: str) -> bool:
    """A variant's results file exists, is readable to its end and says ``finished`` (a cut or damaged file is not
    a finished run: the variant runs again)."""
    if not os.path.isfile(path):
        return False
    try:
        import h5py

        with h5py.File(path, "r", locking=False) as fh:
            status = fh.attrs.get("status")
            n = fh["time"].shape[0] if "time" in fh else 0
            if n:
                fh["time"][n - 1]  # noqa: B018 (reading the last sample proves the file is not cut short)
    except (OSError, RuntimeError, KeyError, ValueError):
        return False
    status = status.decode() if isinstance(status, bytes) else status
    return status == "finished" and n > 0


def _flatten(tree, prefix: str = "") -> dict:
    """Scalar leaves of nested dicts as ``{"a.b.c": value}``; lists and arrays are left out (they are in the
    results file)."""
    flat = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "."))
        elif isinstance(value, (np.floating, np.integer, np.bool_)):
            flat[name] = value.item()
        elif value is None or isinstance(value, (bool, int, float, str)):
            flat[name] = value
    return flat


def _row(record: dict, varied: list) -> dict:
    row = {"variant": record["variant"]}
    row.update({key: record["params"].get(key) for key in varied})
    summary = record.get("summary") or {}
    run = {**record, **{key: summary.get(key) for key in ("steps", "t_end", "max_constraint_violation")},
           "error": record.get("error", ""), "warnings": "\n".join(record.get("warnings") or [])}
    for name in META[1:]:  # the run's columns, after the varied parameters
        row["run." + name if name in row else name] = run.get(name)
    for name, value in _flatten(summary.get("outputs") or {}).items():
        row["out." + name if name in row else name] = value
    return row


def _table(records: list, varied: list):
    """DataFrame of the records; object columns of mixed types become text so that Parquet can hold them."""
    import pandas as pd

    frame = pd.DataFrame([_row(r, varied) for r in records])
    for column in frame.columns[frame.dtypes == object]:
        if len({type(v) for v in frame[column].dropna()}) > 1:  # types other than None and NaN
            frame[column] = [None if v is None else str(v) for v in frame[column]]
    return frame


def _write_table(path: str, records: list, varied: list):
    frame = _table(records, varied)
    with atomic_output(os.path.join(path, "table.parquet"), "study table", force=True) as tmp:
        frame.to_parquet(tmp, index=False)
    with atomic_output(os.path.join(path, "table.csv"), "study table", force=True) as tmp, \
            open_output(tmp, "w", newline="") as handle:
        frame.to_csv(handle, index=False)
    return frame


def _read_record(path: str) -> dict | None:
    try:
        with open(path) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def _prepare(case, variations, design, samples, seed, fixed, t_end):
    """Typed fixed parameters and the variants ``[(id, params or None, error)]``."""
    unknown = [k for k in list(variations) + list(fixed or {}) if k not in case.DEFAULTS]
    if unknown:
        raise ModelError(f"{case.NAME}: unknown parameter {unknown[0]!r}; valid keys: "
                         f"{', '.join(sorted(case.DEFAULTS))}")
    both = sorted(set(variations) & set(fixed or {}))
    if both:
        raise ModelError(f"parameter {both[0]!r} is both varied and fixed; give it once")
    if not variations:
        raise ModelError("a study needs at least one --vary KEY=V1,V2,...")
    fixed_typed = typed_parameters(fixed or {}, case.DEFAULTS, case.NAME)
    variants = []
    for raw in design_variants(variations, design, samples, seed):
        try:
            params = {**fixed_typed, **typed_parameters(raw, case.DEFAULTS, case.NAME)}
            error = ""
        except ModelError as exc:  # one bad value makes one failed variant, not a failed study
            params, error = {**fixed_typed, **{k: str(v) for k, v in raw.items()}}, str(exc)
        variants.append((variant_id(case.NAME, params, t_end), params, error))
    return fixed_typed, variants


def _typed_value(case, key: str, value):
    """A varied value as typed where it is valid, else as given (for the manifest)."""
    try:
        return typed_parameters({key: value}, case.DEFAULTS, case.NAME)[key]
    except ModelError:
        return value.item() if hasattr(value, "item") else value


def _has_bokeh() -> bool:
    """Whether the scheduler can serve the dashboard (it needs bokeh)."""
    return importlib.util.find_spec("bokeh") is not None


def _connect(scheduler, workers, client, say):
    """``(client, cluster or None, owned)``: the given client, one to ``scheduler``, or a new LocalCluster.

    The local scheduler's HTTP server (the dashboard with bokeh, else only Dask's health and metrics pages) asks for
    port 8787 when bokeh is there and for any free port on 127.0.0.1 otherwise; when 8787 is taken (another Dask
    cluster), Dask's own multi-line warning is dropped and :func:`_announce` names the port used instead."""
    from distributed import Client, LocalCluster

    if client is not None:
        return client, None, False
    if scheduler:
        try:
            return Client(scheduler, timeout="20s"), None, True
        except OSError as exc:
            raise FlexmbsError(f"cannot reach the Dask scheduler at {scheduler!r} ({exc}); start one with "
                               "`dask scheduler` or drop --scheduler for a local cluster") from None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    n_workers = workers or cores
    say(f"starting a local Dask cluster: {n_workers} worker processes × 1 thread")
    dashboard = f":{DASHBOARD_PORT}" if _has_bokeh() else "127.0.0.1:0"
    # the workers' scratch folders in a folder of this study run's own: in Dask's shared one (TMP/dask-scratch-space)
    # every new cluster purges the folders of workers that have gone, and a study stopped by Ctrl-C while another
    # cluster started raced with that purge ("distributed.diskutils - ERROR - Failed to remove ...")
    scratch = tempfile.mkdtemp(prefix="flexmbs-study-dask-")
    try:
        with warnings.catch_warnings():  # the scheduler starts in Dask's event-loop thread: process-wide meanwhile
            warnings.filterwarnings("ignore", message=r"Port \d+ is already in use", category=UserWarning)
            # preload: the worker processes ignore Ctrl-C (flexmbs.studies.worker.dask_setup); this process stops them
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                   silence_logs=logging.ERROR, dashboard_address=dashboard,
                                   preload=["flexmbs.studies.worker"], local_directory=scratch)
        cluster.flexmbs_scratch = scratch  # removed by _close
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    try:
        return Client(cluster), cluster, True
    except BaseException:
        _close(None, cluster, False, [], False)
        raise


def _announce(client, say, local: bool) -> tuple[str, str | None]:
    """One line: the scheduler, its workers and the dashboard (on the local cluster: whether 8787 was taken)."""
    info = client.scheduler_info()
    address = info.get("address", str(client.scheduler.address))
    port = info.get("services", {}).get("dashboard")
    dashboard = client.dashboard_link if _has_bokeh() and port else None  # without bokeh: no /status page
    taken = f" (port {DASHBOARD_PORT} is taken, by another Dask cluster?)" if local and dashboard and \
        port != DASHBOARD_PORT else ""
    say(f"dask scheduler {address}, {len(info.get('workers', {}))} workers; dashboard: "
        f"{dashboard or 'off (install bokeh>=3.1 to get one)'}{taken}")
    return address, dashboard


def study(case, variations: dict | None = None, *, vary: dict | None = None, design: str = "grid",
          samples: int | None = None, seed: int = 0, fixed: dict | None = None, t_end: float | None = None,
          out: str = "study", workers: int | None = None, scheduler: str | None = None, client=None,
          retries: int = 2, progress: bool = True, plan: str | None = None, name: str | None = None,
          defaults: dict | None = None, outputs=None, simulate_options: dict | None = None) -> StudyResult:
    """Run a parameter study of a case, or of a model written in Python, on Dask; resumable (see the module
    docstring for the folder layout).

    Parameters
    ----------
    case : str, case module or callable
        A case of the registry (``flexmbs cases``), or a function of the parameters as keywords that builds and runs
        a model (returns Results, a Model to simulate to ``t_end``, or a dict of outputs; see
        :mod:`flexmbs.studies.function_case`). ``name``, ``defaults``, ``outputs`` and ``simulate_options`` apply to
        a callable.
    variations, vary : dict
        ``{key: [values]}`` (values as numbers or ``--set``-style strings); for ``lhs`` ``{key: [low, high]}``.
        ``vary`` is the same argument by keyword.
    design : str
        ``grid``, ``zip``, ``lhs`` (with ``samples``) or ``lhs:N``.
    samples, seed : int
        Latin-hypercube sample count and seed.
    fixed : dict, optional
        Parameters set for every variant.
    t_end : float, s, optional
        End time of every run (default: the case's).
    out : str
        Study folder.
    workers : int, optional
        Worker processes of the local cluster (default: one per core).
    scheduler : str, optional
        Address of an existing Dask scheduler (``tcp://host:8786``); ``client``: an existing ``distributed.Client``.
    retries : int
        Dask retries of a task that raised something other than a FlexmbsError (a worker that dies is rescheduled
        by the scheduler anyway, up to ``distributed.scheduler.allowed-failures`` times).
    progress : bool
        Progress bar and messages on stderr.
    plan : str, optional
        The study plan file this study came from (recorded in the manifest).
    """
    def say(message):
        if progress:
            print(message, file=sys.stderr, flush=True)

    if vary is not None and variations is not None:
        raise ModelError("give the variations once: variations or vary=")
    variations = (vary if variations is None else variations) or {}
    options = {k: v for k, v in (("name", name), ("defaults", defaults), ("outputs", outputs),
                                 ("simulate_options", simulate_options)) if v is not None}
    if isinstance(case, str):
        if options:
            raise ModelError("name, defaults, outputs and simulate_options apply to a study of a callable, not of a "
                             "registered case")
        case = get_case(case)
    else:
        from .function_case import as_case

        if callable(case) and not hasattr(case, "DEFAULTS"):
            options.setdefault("t_end", t_end)
        case = as_case(case, **options)
    kind, count = parse_design(design)
    samples = count or samples
    if t_end is not None and not (float(t_end) > 0.0 and np.isfinite(float(t_end))):
        raise ModelError(f"t_end must be a positive time in s, got {t_end}")
    with _CtrlC() as ctrl_c:  # from here on a Ctrl-C is acted on at safe points (see _CtrlC)
        workers = check_workers(workers)
        fixed_typed, variants = _prepare(case, variations, kind, samples, seed, fixed, t_end)
        check_variants(case, fixed_typed, variants)
        check_table_writer()
        out = os.path.abspath(out)
        runs = os.path.join(out, RUNS)
        varied = list(variations)
        manifest = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "case": case.NAME,
                    "case_module": getattr(case, "__name__", None), "software": _software(), "plan": plan,
                    "design": kind, "samples": samples, "seed": seed, "t_end": t_end,
                    "variations": {k: [_typed_value(case, k, v) for v in values] for k, values in variations.items()},
                    "fixed": fixed_typed, "varied": varied,
                    "updated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                    "variants": [{"variant": vid, "params": params} for vid, params, _ in variants]}
        check_study_folder(out, manifest)
        os.makedirs(runs, exist_ok=True)
        _write_json(os.path.join(out, MANIFEST), manifest)

        records, todo = {}, []
        for vid, params, error in variants:
            if vid in records:
                continue  # the same variant twice in a design: run it once
            earlier = _read_record(os.path.join(runs, f"{vid}.json"))
            if earlier and earlier.get("status") == "finished" and _finished_file(
                    os.path.join(runs, earlier.get("results_file") or "")):
                records[vid] = earlier
            elif error:
                records[vid] = {"variant": vid, "case": case.NAME, "params": params, "t_end": t_end,
                                "status": "failed", "error": error, "wall_s": 0.0, "summary": {}, "results_file": None,
                                "worker": None}
                _write_json(os.path.join(runs, f"{vid}.json"), records[vid])
            else:
                records[vid] = None
                todo.append((vid, params))
        n_skipped = sum(1 for r in records.values() if r and r["status"] == "finished")
        say(f"study of {case.NAME}: {len(records)} variants, {n_skipped} done earlier, {len(todo)} to run → {out}")
        address = dashboard = report = None
        interrupted, done = False, []
        ctrl_c.check()  # a Ctrl-C while the study was prepared: nothing has run, a plain KeyboardInterrupt
        try:
            try:
                if todo:
                    address, dashboard = _run_tasks(_task_case(case), todo, t_end, runs, records, scheduler, workers,
                                                    client, retries, progress, say, len(records) - len(todo), ctrl_c)
            finally:  # also after Ctrl-C: the table of what finished
                done = [records[vid] for vid in dict.fromkeys(v[0] for v in variants) if records[vid] is not None]
                frame = _write_table(out, done, varied)
            ctrl_c.check()
            report = _report(case, frame, manifest, out, say)
            ctrl_c.check()
        except KeyboardInterrupt:
            interrupted = True
    n_finished = sum(r["status"] == "finished" for r in done)
    if interrupted:
        rest = len(records) - n_finished
        raise StudyInterrupted(f"all {n_finished} variants finished, kept in {out}" if not rest else
                               f"{n_finished} of {len(records)} variants finished, kept in {out}; the same study run "
                               f"again runs the other {rest}") from None
    return StudyResult(path=out, case=case.NAME, table=frame, n_variants=len(records), n_finished=n_finished,
                       n_failed=len(done) - n_finished, n_skipped=n_skipped, n_pending=len(records) - len(done),
                       scheduler=address, dashboard=dashboard, report=report)


def _task_case(case):
    """What a task carries to name its case: the registry name, or the callable's :class:`FunctionCase` itself
    (pickled by value)."""
    from .function_case import FunctionCase

    return case if isinstance(case, FunctionCase) else case.NAME


def _run_tasks(task_case, todo, t_end, runs, records, scheduler, workers, client, retries, progress, say, n_done,
               ctrl_c):
    """Submit one task per variant, write each record as it arrives (its warnings printed as one line each).

    ``ctrl_c`` (:class:`_CtrlC`) is checked before the cluster starts, once it has started, after the tasks are
    submitted and every 0.1 s while the results come in; a Ctrl-C raises ``KeyboardInterrupt`` there, after the
    results already back are recorded, and the workers are stopped within about a second."""
    from distributed import as_completed
    from tqdm import tqdm

    from .worker import CasePlugin, one_line, run_variant

    case_name = task_case if isinstance(task_case, str) else task_case.NAME
    ctrl_c.check()
    try:
        client, cluster, owned = _connect(scheduler, workers, client, say)
    except Exception:
        if ctrl_c.count:  # whatever the start-up met after Ctrl-C is not the user's problem
            raise KeyboardInterrupt from None
        raise
    bar = pending = None
    futures = {}
    quick = False  # after Ctrl-C: close the cluster within about a second (issue 30)
    try:
        ctrl_c.check()
        address, dashboard = _announce(client, say, local=cluster is not None)
        try:
            if isinstance(task_case, str):
                client.register_plugin(CasePlugin(case_name))
        except Exception as exc:  # noqa: BLE001 (whatever the worker raised while loading the case)
            raise FlexmbsError(f"the Dask workers cannot load case {case_name!r}: {one_line(exc)}; install the "
                               "package that provides it where the workers run") from None
        ctrl_c.check()
        tag = uuid.uuid4().hex[:8]
        for vid, params in todo:
            path = os.path.join(runs, f"{vid}.results.h5")
            future = client.submit(run_variant, task_case, vid, params, t_end, path,
                                   key=f"{case_name}-{vid}-{tag}", retries=retries, pure=False)
            futures[future] = (vid, params)
        bar = tqdm(total=n_done + len(todo), initial=n_done, desc=case_name, unit="run", file=sys.stderr,
                   disable=not progress, dynamic_ncols=True)
        pending = as_completed(futures)
        failed = 0
        while True:
            ctrl_c.check()
            batch = pending.next_batch(block=False)
            if not batch:
                if pending.is_empty():
                    break
                time.sleep(0.1)
                continue
            for future in batch:
                failed += _keep(future, futures, records, runs, t_end, case_name, bar) != "finished"
                if failed:
                    bar.set_postfix(failed=failed)
        return address, dashboard
    except KeyboardInterrupt:
        quick = True
        if pending is not None:  # results back but not yet recorded are kept too (a fetch that fails: run again)
            for future in pending.next_batch(block=False):
                if future.status == "finished":
                    with contextlib.suppress(Exception):
                        _keep(future, futures, records, runs, t_end, case_name, bar, timeout=2)
        raise
    finally:
        if bar is not None:
            bar.close()
        _close(client, cluster, owned, list(futures), quick)


def _keep(future, futures, records, runs, t_end, case_name, bar, timeout=None) -> str:
    """Write the record of a finished (or failed) task and print its warnings; returns its status."""
    from .worker import one_line

    vid, params = futures[future]
    try:
        record = future.result(timeout=timeout)
    except Exception as exc:  # noqa: BLE001 (retries exhausted, or KilledWorker)
        if timeout is not None and isinstance(exc, TimeoutError):
            raise
        record = {"variant": vid, "case": case_name, "params": params, "t_end": t_end, "status": "failed",
                  "error": one_line(exc), "wall_s": None, "summary": {}, "results_file": None, "worker": None}
    for text in record.get("warnings") or []:
        bar.write(f"warning: {vid}: {text}", file=sys.stderr)
    records[vid] = record
    _write_json(os.path.join(runs, f"{vid}.json"), record)
    bar.update(1)
    return record["status"]


def _close(client, cluster, owned, futures, quick) -> None:
    """Cancel what is left and close the client and the local cluster. After Ctrl-C within about a second: the
    local workers are stopped first by their nannies (0.5 s for a busy worker to stop, then killed; a nanny that is
    closing does not start a new worker), with Dask's log quiet meanwhile (its errors about connections that went
    away are no news after Ctrl-C); the variants they ran have no record and run again in the next run."""
    try:
        _close_dask(client, cluster, owned, futures, quick)
    finally:
        from distributed.core import Status

        scratch = getattr(cluster, "flexmbs_scratch", None)
        # only once closed: a cluster still closing would log errors about its folders at exit
        if scratch and getattr(cluster, "status", None) == Status.closed:
            shutil.rmtree(scratch, ignore_errors=True)


def _close_dask(client, cluster, owned, futures, quick) -> None:
    if not quick:
        if client is not None and futures:
            client.cancel(futures)
        if client is not None and owned:
            client.close()
        if cluster is not None:
            cluster.close()
        return
    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        with contextlib.suppress(Exception):
            if client is not None and futures:
                client.cancel(futures)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.sync(_stop_workers, list(getattr(cluster, "workers", {}).values()), callback_timeout=5)
        with contextlib.suppress(Exception):
            if client is not None and owned:
                client.close(timeout=1)
        with contextlib.suppress(Exception):
            if cluster is not None:
                cluster.close(timeout=2)
    finally:
        log.setLevel(level)


async def _stop_workers(nannies) -> None:
    import asyncio

    await asyncio.gather(*(nanny.close(timeout=0.5, reason="flexmbs-study-interrupted") for nanny in nannies),
                         return_exceptions=True)


def _report(case, frame, manifest, out, say):
    """The case's own study report (``study_report(table, manifest) -> str``), written to ``report.md``."""
    hook = getattr(case, "study_report", None)
    if hook is None or frame.empty:
        return None
    text = hook(frame, manifest)
    if not text:
        return None
    path = os.path.join(out, "report.md")
    with atomic_output(path, "study report", force=True) as tmp, open_output(tmp, "w") as handle:
        handle.write(text)
    say(f"report: {path}")
    return path
