"""Simulation results: named signals in memory, written incrementally and atomically to ``*.results.h5``.

See the section "Results file schema" of docs/theory-multibody.md for the layout. Signals are addressed by their
path below ``/signals``, e.g. ``"body/crank/position"`` (n, 3) or ``"joint/pivot/force"``; every dataset has a
``unit`` attribute (SI) and vector signals a ``components`` attribute.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
import tempfile
import time as _time
from collections import Counter
from collections.abc import Mapping

import numpy as np

from fem.errors import FileFormatError, FlexmbsError, SimulationError

from . import derived
from .outputs import STATE_SLICES, NotRecordedError, not_recorded_message

# h5py is imported where a file is opened: the package build's engine warm-up runs without it (issue 42: a smaller
# build environment)

__all__ = ["Results", "ResultsWriter", "load_results", "scratch_results", "FORMAT_NAME", "FORMAT_VERSION"]

FORMAT_NAME = "flexmbs-results"
FORMAT_VERSION = 1


class Results:
    """Time histories by name plus the solver's verdict.

    Attributes
    ----------
    success : bool
    message : str
    status : str            ``"finished"``, ``"interrupted"`` or ``"failed"``
    statistics : dict       steps, rejected steps, Newton iterations, Jacobian evaluations, wall time, ...
    time : (n,) float, s
    units : dict            signal name -> unit
    path : str or None      the results file, if one was written
    attributes : dict       case, parameters, software version, the requested ``outputs`` (patterns), ...

    A run that requested some outputs only (``simulate(..., outputs=[...])``, :mod:`flexmbs.results.outputs`) holds
    those; reading another signal says it was not requested and how to request it. A body's ``position``,
    ``orientation``, ``velocity`` and ``modal_coordinates`` are read from the states when they were not recorded.
    """

    def __init__(self, time, data: dict, units: dict, components: dict | None = None, success=True, message="",
                 status="finished", statistics=None, path=None, attributes=None):
        self.time = np.asarray(time, dtype=float)
        self._data = data
        self.units = units
        self.components = components or {}
        self.success, self.message, self.status = success, message, status
        self.statistics = statistics or {}
        self.path = path
        self.attributes = attributes or {}
        self.final_state = None
        self.states: dict = {}  # raw solver states "q", "v", "z" per sample
        self.system = None
        self.request = None  # the run's OutputRequest (in memory; a file keeps its patterns in attributes["outputs"])
        self.body_layout: dict = {}  # body name -> (offset, number of coordinates) in q, q̇ (read from a file)

    def energy(self) -> dict[str, np.ndarray]:
        """Kinetic, gravitational, strain, spring and total mechanical energy (J) per sample (in-memory runs)."""
        if self.system is None or not len(self.states):
            raise FlexmbsError("energy needs the in-memory results of simulate(), not a loaded file")
        rows = [self.system.mechanical_energy(q, v, t) for t, q, v in zip(self.time, self.states["q"],
                                                                           self.states["v"])]
        return {key: np.array([r[key] for r in rows]) for key in rows[0]}

    def signals(self) -> dict[str, str]:
        """All signal names with their units."""
        return dict(self.units)

    def __contains__(self, name: str) -> bool:
        """A recorded signal, or a body's pose read from the states (a run that did not request it)."""
        return name in self._data or self._state_slice(name) is not None

    def __getitem__(self, name: str) -> np.ndarray:
        if not isinstance(name, str):  # issue 43: results[3] was an AttributeError
            raise FlexmbsError(f"a signal is named by text such as 'body/NAME/position' (results.signals() lists them), "
                               f"got {name!r} ({type(name).__name__})")
        if name == "time":
            return self.time
        if name not in self._data:
            if derived.parse(name) is not None:
                return self._derive(name)
            sliced = self._state_slice(name)
            if sliced is not None:
                return sliced
            patterns = self.attributes.get("outputs")
            if patterns is not None and self._not_requested(name):
                raise NotRecordedError(not_recorded_message(name, patterns))
            close = [n for n in self._data if name.split("/")[-1] in n][:8]
            hint = f"; similar: {', '.join(close)}" if close else ""
            raise FlexmbsError(f"no signal {name!r} in the results{hint}")
        return self._data[name]

    def _not_requested(self, name: str) -> bool:
        """Whether ``name`` is a signal the run left out by its request (in memory: one of the model's signals it
        did not record; from a file: a name none of the request's patterns matches)."""
        request = getattr(self, "request", None)
        if request is not None:
            return name in request.names and name not in request
        from .outputs import OutputRequest

        return name not in OutputRequest(list(self.attributes.get("outputs") or []))

    def _state_slice(self, name: str) -> np.ndarray | None:
        """``body/B/position`` (n, 3), ``orientation`` (n, 4), ``velocity`` (n, 3) or ``modal_coordinates`` (n, m)
        of a body from the recorded states ``q``, ``q̇`` (a run that did not request them), or None."""
        parts = name.split("/")
        if len(parts) != 3 or parts[0] != "body" or parts[2] not in STATE_SLICES:
            return None
        layout = dict(self.body_layout)
        for body in getattr(self.system, "bodies", ()):
            layout.setdefault(body.name, (body.offset, body.n_coordinates))
        first, last, which, unit, components = STATE_SLICES[parts[2]]
        if parts[1] not in layout or which not in self.states:
            return None
        offset, n = layout[parts[1]]
        last = n if last is None else last
        if last <= first:  # a rigid body has no modal coordinates
            return None
        self.units.setdefault(name, unit)
        self.components.setdefault(name, components or [f"q{k + 1}" for k in range(last - first)])
        return np.asarray(self.states[which])[:, offset + first:offset + last]

    def _derive(self, name: str) -> np.ndarray:
        """A signal of :mod:`flexmbs.results.derived`, computed once from the states and kept."""
        if self.system is None or not len(self.states) or "q" not in self.states:
            raise FlexmbsError(f"{name!r} is derived from the states and the model: ask the results of simulate() "
                               "for it (a loaded file keeps the recorded signals only)")
        values, unit, comps = derived.derive(self.system, self.time, self.states, name,
                                             getattr(self, "accelerations", None))
        if isinstance(self._data, dict):
            self._data[name] = values
        self.units[name], self.components[name] = unit, comps
        return values

    def resample(self, interval: float | None = None, times=None) -> "Results":
        """The results at a fixed ``interval`` (s) from the first sample, or at the given ``times`` (s), for
        comparison with fixed-step data: every signal interpolated by a cubic spline through the samples (its
        error is of the order of the integration error between accepted steps; linear for fewer than 4 samples).
        Derived signals asked for before are resampled too; the states are not kept."""
        from scipy.interpolate import CubicSpline

        if times is None:
            if interval is None or not interval > 0.0:
                raise FlexmbsError(f"resample needs a positive interval in s or times, got {interval!r}")
            times = np.arange(self.time[0], self.time[-1] + 1e-9 * interval, interval)
        times = np.asarray(times, dtype=float)
        if times.size and (times.min() < self.time[0] - 1e-12 or times.max() > self.time[-1] + 1e-12):
            raise FlexmbsError(f"resample times must lie within {self.time[0]:g} .. {self.time[-1]:g} s")
        keep = np.concatenate([[True], np.diff(self.time) > 0.0])  # a repeated sample (event) would stop the spline
        t = self.time[keep]
        data = {}
        for name in self._data:
            values = np.asarray(self._data[name], dtype=float)[keep]
            if t.size >= 4:
                data[name] = CubicSpline(t, values, axis=0)(times)
            else:
                data[name] = np.stack([np.interp(times, t, col) for col in values.reshape(t.size, -1).T],
                                      axis=-1).reshape((times.size,) + values.shape[1:])
        return Results(times, data, dict(self.units), dict(self.components), self.success, self.message,
                       self.status, dict(self.statistics), None, dict(self.attributes))

    def to_csv(self, path: str, names=None) -> None:
        """Write ``time`` and the given signals (all scalar-or-vector signals by default) to CSV, SI units."""
        if not str(os.fspath(path)).lower().endswith((".csv", ".txt")):  # issue 43: CSV text under x.xlsx
            raise FlexmbsError(f"to_csv: {os.fspath(path)!r} must end in .csv (or .txt): the file is comma-separated "
                               "text")
        names = list(names) if names is not None else list(self._data)
        columns = [("time [s]", self.time)]
        for name in names:
            arr = self[name]
            unit = self.units.get(name, "")
            if arr.ndim == 1:
                columns.append((f"{name} [{unit}]", arr))
            else:
                comps = self.components.get(name) or [str(k) for k in range(arr.shape[1])]
                columns += [(f"{name}/{comps[k]} [{unit}]", arr[:, k]) for k in range(arr.shape[1])]
        from .safe_files import atomic_output, open_output, write_rows

        with atomic_output(path, "csv file", kind="csv table", inputs=[self.path], force_hint="") as tmp, \
                open_output(tmp, "w", newline="") as fh:
            write_rows(fh, [c[0] for c in columns],
                       ([f"{x:.10g}" for x in row] for row in zip(*[c[1] for c in columns])))

    def __repr__(self) -> str:
        return (f"Results({self.status}, {self.time.size} samples to t={self.time[-1] if self.time.size else 0:g} s,"
                f" {len(self._data)} signals)")

    def run_warnings(self) -> list[str]:
        """The run's warnings (plausibility, fallbacks), one line each, as the results file keeps them."""
        found = getattr(self, "warnings", None) or self.attributes.get("warnings") or []
        if isinstance(found, str):
            found = found.split("\n")
        return [" ".join(str(w).split()) for w in found if str(w).strip()]

    def summary(self) -> str:
        """A few lines: status and message, time span, the engine and its work, signal groups, the warnings."""
        stats = self.statistics
        end = self.time[-1] if self.time.size else 0.0
        lines = [f"Results of {self.attributes.get('model', self.attributes.get('case', 'a run'))!r}: {self.status} "
                 f"({self.message or 'no message'}), {self.time.size} samples, t = 0 … {end:g} s"
                 + (f", file {self.path}" if self.path else "")]
        if "steps" in stats:
            lines.append(f"solver: {stats.get('engine', 'python')} engine, {stats['steps']} steps "
                         f"({stats.get('rejected_steps', 0)} rejected)")
        groups = Counter("/".join(name.split("/")[:2]) for name in self._data)
        shown = ", ".join(f"{k} ({n})" for k, n in list(groups.items())[:8])
        lines.append(f"signals: {len(self._data)}: {shown}{', …' if len(groups) > 8 else ''}")
        lines += [f"warning: {w}" for w in self.run_warnings()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(self.summary())}</pre>"


_SCRATCH: list = []  # folders of active scratch_results() contexts


@contextlib.contextmanager
def scratch_results():
    """Within this context, runs without an output file stream their results to a temporary file (deleted at the
    end) instead of holding them in memory: resident memory independent of the simulated time."""
    with tempfile.TemporaryDirectory(prefix="flexmbs-results-") as folder:
        _SCRATCH.append(folder)
        try:
            yield folder
        finally:
            _SCRATCH.remove(folder)


def scratch_folder() -> str | None:
    """The folder of the innermost active :func:`scratch_results` context, if any."""
    return _SCRATCH[-1] if _SCRATCH else None


class ResultsWriter:
    """Incremental, atomic, locked writer of a results file (docs/safety.md, "Results files").

    Rows go to a unique temporary ``<path>.<pid>.part`` beside the locked target, in chunks flushed every
    ``flush_every`` rows or ``flush_seconds`` of wall time (a killed run leaves a readable ``.part``); :meth:`close`
    renames it over the target when the run made progress or there was no earlier file. A write error (disk full)
    frees a reserve of ``reserve_bytes`` beside it, writes what is buffered and stops the run with a
    :class:`SimulationError`; what was written stays readable.
    """

    def __init__(self, path: str, attributes: dict, model_data: dict | None = None, flush_every: int = 200,
                 flush_seconds: float = 1.0, lock: bool = True, reserve_bytes: int = 2 ** 21, force: bool = False,
                 inputs=()):
        from .file_kinds import check_replace
        from .safe_files import _acquire, check_writable, part_path

        self.path = str(path)
        check_writable(self.path, "results file", suffixes=(".h5",))  # issue 43: output="x.txt" wrote HDF5
        check_replace(self.path, "results file", force=force, inputs=inputs, option="results file",
                      force_hint=" (or pass force=True)")
        self._lock = os.path.abspath(self.path) if lock else None
        if self._lock:
            _acquire(self._lock)
        self.flush_seconds = flush_seconds
        self._last_flush = _time.monotonic()
        self.part = part_path(self.path)
        self.flush_every = flush_every
        self.rows_written = 0
        self.broken = None  # reason, once a write error made the file unusable
        self.final_path = None
        self.kept_finished = None  # the finished earlier file a failed run left in place (its samples: the .part)
        self._buffer: list = []
        self._buffered = 0  # rows in the buffer (a block entry holds several)
        self._datasets: dict = {}
        self._reserve = self.part + ".reserve"
        try:
            with open(self._reserve, "wb") as handle:  # freed on a full disk so the file can still be closed
                handle.write(b"\0" * reserve_bytes)
            # a small raw-data chunk cache per dataset (default 1 MB each: hundreds of MB for hundreds of signals,
            # filled as the file grows); written chunks are not needed again
            import h5py

            self.file = h5py.File(self.part, "w", rdcc_nbytes=2 ** 15, rdcc_nslots=101)
            for key, value in {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "status": "running",
                               "created": _dt.datetime.now(_dt.timezone.utc).isoformat(), "pid": os.getpid(),
                               **attributes}.items():
                self.file.attrs[key] = json.dumps(value) if isinstance(value, (dict, list)) else value
            if model_data:
                _write_tree(self.file.create_group("model"), model_data)
            self.file.flush()
        except (OSError, RuntimeError) as exc:
            self._discard()
            raise FlexmbsError(f"cannot write results file {self.path!r}: {_reason(exc)}") from None

    def _discard(self) -> None:
        for name in (self.part, self._reserve):
            with contextlib.suppress(OSError):
                os.unlink(name)
        self._unlock()

    def _unlock(self) -> None:
        from .safe_files import _release

        if self._lock:
            _release(self._lock)
            self._lock = None

    def _create(self, name, value, unit, components):
        shape = np.shape(value)
        ds = self.file.create_dataset(name, shape=(0,) + shape, maxshape=(None,) + shape, dtype="f8",
                                      chunks=(max(1, min(self.flush_every, 4096 // max(1, int(np.prod(shape))))),)
                                      + shape)
        ds.attrs["unit"] = unit
        if components:
            ds.attrs["components"] = ",".join(components)
        self._datasets[name] = ds

    def append(self, t: float, row: dict, units: dict, components: dict, states: tuple | None = None) -> None:
        """Buffer one sample (``states``: the raw solver vectors ``(q, v, z)``, stored under ``/states``)."""
        if self.broken:
            return
        if not self._datasets:
            self._create("time", t, "s", None)
            for name, value in row.items():
                self._create("signals/" + name, value, units[name], components.get(name))
            for name, value in zip(("q", "v", "z"), states or ()):
                if np.size(value):
                    self._create("states/" + name, value, "mixed (solver coordinates)", None)
        self._buffer.append((t, row, states))
        self._buffered += 1
        if self._buffered >= self.flush_every or _time.monotonic() - self._last_flush > self.flush_seconds:
            self.flush()

    def append_block(self, times: np.ndarray, columns: dict, units: dict, components: dict,
                     states: tuple | None = None) -> None:
        """Buffer several samples at once: ``columns`` maps each signal name to an array with one row per time
        (the compiled step's samples); the same datasets as :meth:`append`."""
        if self.broken or not len(times):
            return
        if not self._datasets:
            self._create("time", times[0], "s", None)
            for name, value in columns.items():
                self._create("signals/" + name, value[0], units[name], components.get(name))
            for name, value in zip(("q", "v", "z"), states or ()):
                if np.size(value[0]):
                    self._create("states/" + name, value[0], "mixed (solver coordinates)", None)
        self._buffer.append(("block", np.asarray(times, dtype=float), columns, states))
        self._buffered += len(times)
        if self._buffered >= self.flush_every or _time.monotonic() - self._last_flush > self.flush_seconds:
            self.flush()

    def _column(self, name: str) -> np.ndarray:
        """The buffered values of one dataset, rows and blocks in order."""
        pieces, run = [], []
        k = ("states/q", "states/v", "states/z").index(name) if name.startswith("states/") else None
        key = name[len("signals/"):]
        for entry in self._buffer:
            if isinstance(entry[0], str):  # a block
                if run:
                    pieces.append(np.array(run))
                    run = []
                _, times, columns, states = entry
                pieces.append(times if name == "time" else (states[k] if k is not None else columns[key]))
            else:
                run.append(entry[0] if name == "time" else (entry[2][k] if k is not None else entry[1][key]))
        if run:
            pieces.append(np.array(run))
        return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)

    def _write_block(self) -> None:
        """Write the buffered rows after the ``rows_written`` ones (repeatable after a failed attempt)."""
        n_old, n_new = self.rows_written, self._buffered
        for name, ds in self._datasets.items():
            block = self._column(name)
            ds.resize(n_old + n_new, axis=0)
            ds[n_old:] = block
        self.file.flush()

    def flush(self) -> None:
        """Write the buffered rows and flush the file; a write error frees the reserve, retries once and stops the
        run with a one-line :class:`SimulationError` (the rows written so far stay readable)."""
        if not self._buffer or self.broken:
            return
        reason = None
        try:
            try:
                self._check_room()
            except _NoRoom:  # the reserve is the last margin: spend it on samples before giving up
                if not os.path.exists(self._reserve):
                    raise
                self._free_reserve()
                self._check_room()
            self._write_block()
        except (OSError, RuntimeError) as exc:
            reason = _reason(exc)
            self._free_reserve()
            try:
                if isinstance(exc, _NoRoom):
                    raise exc
                self._write_block()  # in the reserve's room: these rows are kept, then the run stops
            except (OSError, RuntimeError):
                self.broken = reason
                if not self.rows_written:
                    raise SimulationError(f"cannot write results file {self.path!r}: {reason}; no sample could "
                                          "be written (free some space)") from None
                t_kept = self._last_time_written()
                raise SimulationError(f"cannot write results file {self.path!r}: {reason}; the samples up to "
                                      f"t = {t_kept:.6g} s are kept (free some space)") from None
        last = self._buffer[-1]
        t_last = float(last[1][-1]) if isinstance(last[0], str) else last[0]
        self.rows_written += self._buffered
        self._buffer.clear()
        self._buffered = 0
        self._last_flush = _time.monotonic()
        if reason is not None:
            self.broken = reason
            raise SimulationError(f"writing the results stopped at t = {t_last:.6g} s: {reason} (free some space; "
                                  "the samples up to there are kept)") from None

    def _check_room(self) -> None:
        """Stop before the disk is full: HDF5 must never meet a full disk (it may crash the process, or leave a
        file it cannot close). The next block, plus 1 MB for the file's metadata, must fit."""
        from .safe_files import free_bytes

        row = sum(ds.dtype.itemsize * int(np.prod(ds.shape[1:])) for ds in self._datasets.values())
        need = self._buffered * row * 1.5 + 2 ** 20
        if free_bytes(self.part) < need:
            raise _NoRoom("No space left on device (less than the next block of samples plus 1 MB is free)")

    def _last_time_written(self) -> float:
        try:
            return float(self._datasets["time"][self.rows_written - 1]) if self.rows_written else 0.0
        except (KeyError, OSError, RuntimeError, ValueError):
            return float("nan")

    def _free_reserve(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self._reserve)

    def close(self, status: str, message: str, statistics: dict, warnings: list | None = None) -> str | None:
        """Finish the file and move it over the target when the run made progress or no earlier file exists.
        Returns the path holding the results (the target, the ``.part`` if it could not be finished, or None when
        a run without progress left an existing file untouched)."""
        try:
            try:
                self.flush()
            except SimulationError as exc:
                status, message = "failed", f"{message}; {exc}"
            if self.broken:
                message = message if self.broken in message else f"{message}; {self.broken}"
            self.file.attrs["status"] = status
            self.file.attrs["message"] = message
            self.file.attrs["warnings"] = json.dumps(list(warnings or []))
            grp = self.file.require_group("solver")
            for key, value in statistics.items():
                grp.attrs[key] = value
            self.file.close()
        except (OSError, RuntimeError):  # the disk is full for good: the .part keeps what was flushed
            with contextlib.suppress(OSError, RuntimeError):
                self.file.close()
            self._free_reserve()
            self._unlock()
            self.final_path = self.part
            return self.part
        self._free_reserve()
        progressed = self.rows_written > 1 or status == "finished"
        if status != "finished" and progressed and _finished_results(self.path):
            # a failed or interrupted run never replaces a finished results file: both are kept, said by the run
            self.kept_finished = self.path
            self.final_path = self.part
        elif progressed or (self.rows_written and not os.path.exists(self.path)):
            os.replace(self.part, self.path)
            self.final_path = self.path
        else:
            os.unlink(self.part)
            self.final_path = None
        self._unlock()
        return self.final_path


def _finished_results(path: str) -> bool:
    """Whether ``path`` is a results file of a run that finished (``status = finished``)."""
    if not os.path.isfile(path):
        return False
    import h5py

    try:
        with h5py.File(path, "r", locking=False) as fh:
            return _plain(fh.attrs.get("format")) == FORMAT_NAME and _plain(fh.attrs.get("status")) == "finished"
    except (OSError, RuntimeError):
        return False


class _NoRoom(OSError):
    """The disk has no room for the next block (raised before HDF5 writes anything)."""


def _reason(exc: BaseException) -> str:
    """A short cause of an I/O error (h5py wraps errno texts in long messages)."""
    text = str(exc)
    cut = re.search(r"truncated file: eof = (\d+).*stored_eof = (\d+)", text)
    if cut:  # HDF5's "Unable to synchronously open file (truncated file: eof = ..., stored_eof = ...)"
        return (f"the file is cut short ({int(cut.group(1))} of {int(cut.group(2))} bytes: the disk filled or the "
                "process was killed while it was written)")
    if "file signature not found" in text:
        return "it is not an HDF5 file"
    from .safe_files import _FULL_TEXTS

    for marker, short in (*_FULL_TEXTS, ("Permission denied", "permission denied"),
                          ("Read-only file system", "read-only file system")):
        if marker in text:
            return short
    return text.splitlines()[0][:200] if text else type(exc).__name__


def _write_tree(group, data: dict) -> None:
    for key, value in data.items():
        if isinstance(value, dict):
            _write_tree(group.create_group(key), value)
        elif isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
            data = np.asarray(value[0])
            packed = {"compression": "gzip", "shuffle": True} if data.size > 65536 else {}  # e.g. stress fields
            ds = group.create_dataset(key, data=data, **packed)
            ds.attrs["unit"] = value[1]
        elif isinstance(value, str):
            group.attrs[key] = value
        else:
            ds = group.create_dataset(key, data=np.asarray(value))
            ds.attrs["unit"] = "1"


def _open_results(path: str):
    """Open a results file read-only (no HDF5 file locking, so a ``.part`` still being written can be read)."""
    if not os.path.exists(path):
        raise FileFormatError(f"results file {path!r} does not exist")
    import h5py

    try:
        return h5py.File(path, "r", locking=False)
    except (OSError, FileNotFoundError) as exc:
        raise FileFormatError(f"cannot open results file {path!r}: {_reason(exc)}") from None


class _FileSignals(Mapping):
    """Signals of a results file, read from disk on access (memory independent of the run's length)."""

    def __init__(self, path: str, names: list[str], prefix: str, n: int, empty: tuple = ()):
        self.path, self.prefix, self.n = path, prefix, n
        self.names, self.empty = list(names) + list(empty), tuple(empty)

    def __getitem__(self, name):
        if name not in self.names:
            raise KeyError(name)
        if name in self.empty:
            return np.zeros((self.n, 0))
        with _open_results(self.path) as fh:
            return fh[self.prefix + name][:self.n]

    def __iter__(self):
        return iter(self.names)

    def __len__(self):
        return len(self.names)

    def __contains__(self, name):
        return name in self.names


def load_results(path: str, lazy: bool = False) -> Results:
    """Read a ``*.results.h5`` file (also a ``.part`` file left by a crash: signals are cut to the common length).

    ``lazy``: signals are read from the file when accessed instead of all at once.
    """
    fh = _open_results(path)
    try:
        with fh:
            return _read_results(fh, path, lazy)
    except (KeyError, OSError, RuntimeError, ValueError) as exc:  # h5py's view of a file caught mid-write
        raise FileFormatError(f"{path!r} could not be read ({exc}): it is damaged or still being written; read it "
                              f"again when the run has ended") from None


def _read_results(fh, path: str, lazy: bool) -> Results:
    """The body of :func:`load_results` on an open file."""
    if fh.attrs.get("format") != FORMAT_NAME:
        raise FileFormatError(f"{path!r} is not a flexmbs results file (format attribute missing)")
    if int(fh.attrs.get("format_version", -1)) > FORMAT_VERSION:
        raise FileFormatError(f"{path!r} has results format version {fh.attrs['format_version']}, this flexmbs "
                              f"reads up to {FORMAT_VERSION}; upgrade flexmbs")
    datasets = {}

    import h5py

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            datasets[name] = obj

    if "signals" in fh:
        fh["signals"].visititems(visit)
    lengths = [fh["time"].shape[0]] if "time" in fh else [0]
    lengths += [ds.shape[0] for ds in datasets.values()]
    n = min(lengths)  # a run killed while writing may leave datasets one chunk apart
    time = fh["time"][:n] if "time" in fh else np.zeros(0)
    units = {name: str(ds.attrs.get("unit", "")) for name, ds in datasets.items()}
    comps = {name: str(ds.attrs["components"]).split(",") for name, ds in datasets.items()
             if "components" in ds.attrs}
    stored = [k for k in ("q", "v", "z") if f"states/{k}" in fh]
    # state vectors of zero length (a model without state elements has no z) are not stored (HDF5 cannot chunk a
    # zero-width array) but read back as (n, 0) arrays, like a run kept in memory
    empty = tuple(k for k in ("q", "v", "z") if k not in stored) if "q" in stored else ()
    if lazy:
        data = _FileSignals(str(path), list(datasets), "signals/", n)
        states = _FileSignals(str(path), stored, "states/", n, empty=empty)
    else:
        data = {name: ds[:n] for name, ds in datasets.items()}
        states = {k: fh[f"states/{k}"][:n] for k in stored} | {k: np.zeros((n, 0)) for k in empty}
    attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in fh.attrs.items()}
    stats = dict(fh["solver"].attrs) if "solver" in fh else {}
    status = str(attrs.get("status", "unknown"))
    for key in ("parameters", "warnings", "outputs"):
        if isinstance(attrs.get(key), str):
            with contextlib.suppress(json.JSONDecodeError):
                attrs[key] = json.loads(attrs[key])
    results = Results(time, data, units, comps, success=status == "finished", message=str(attrs.get("message", "")),
                      status=status, statistics={k: _plain(v) for k, v in stats.items()}, path=str(path),
                      attributes=attrs)
    results.states = states
    if "model/bodies" in fh:  # where each body's coordinates are in the states (stored since output requests)
        results.body_layout = {str(name): (int(g["state_offset"][()]), int(g["n_coordinates"][()]))
                               for name, g in fh["model/bodies"].items() if "state_offset" in g}
    return results


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bytes):
        return value.decode()
    return value
