"""Simulation results: named signals in memory, written incrementally and atomically to ``*.results.h5``.

See the section "Results file schema" of docs/theory-multibody.md for the layout. Signals are addressed by their
path below ``/signals``, e.g. ``"body/crank/position"`` (n, 3) or ``"joint/pivot/force"``; every dataset has a
``unit`` attribute (SI) and vector signals a ``components`` attribute.
"""
from __future__ import annotations

import csv
import datetime as _dt
import json
import os
import time as _time

import h5py
import numpy as np

from fem.errors import FileFormatError, FlexmbsError

__all__ = ["Results", "ResultsWriter", "load_results", "FORMAT_NAME", "FORMAT_VERSION"]

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
    attributes : dict       case, parameters, software version, ...
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
        self.states: dict = {}  # raw solver states "q", "v", "z" per sample (in memory only)
        self.system = None

    def energy(self) -> dict[str, np.ndarray]:
        """Kinetic, gravitational, strain, spring and total mechanical energy (J) per sample (in-memory runs)."""
        if self.system is None or not self.states:
            raise FlexmbsError("energy needs the in-memory results of simulate(), not a loaded file")
        rows = [self.system.mechanical_energy(q, v, t) for t, q, v in zip(self.time, self.states["q"],
                                                                           self.states["v"])]
        return {key: np.array([r[key] for r in rows]) for key in rows[0]}

    def signals(self) -> dict[str, str]:
        """All signal names with their units."""
        return dict(self.units)

    def __contains__(self, name: str) -> bool:
        return name in self._data

    def __getitem__(self, name: str) -> np.ndarray:
        if name == "time":
            return self.time
        if name not in self._data:
            close = [n for n in self._data if name.split("/")[-1] in n][:8]
            hint = f"; similar: {', '.join(close)}" if close else ""
            raise FlexmbsError(f"no signal {name!r} in the results{hint}")
        return self._data[name]

    def to_csv(self, path: str, names=None) -> None:
        """Write ``time`` and the given signals (all scalar-or-vector signals by default) to CSV, SI units."""
        names = list(names) if names is not None else list(self._data)
        columns = [("time [s]", self.time)]
        for name in names:
            arr = self[name]
            unit = self.units.get(name, "")
            if arr.ndim == 1:
                columns.append((f"{name} [{unit}]", arr))
            else:
                comps = self.components.get(name) or [str(k) for k in range(arr.shape[1])]
                for k in range(arr.shape[1]):
                    columns.append((f"{name}/{comps[k]} [{unit}]", arr[:, k]))
        with open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow([c[0] for c in columns])
            for row in zip(*[c[1] for c in columns]):
                writer.writerow([f"{x:.10g}" for x in row])

    def __repr__(self) -> str:
        return (f"Results({self.status}, {self.time.size} samples to t={self.time[-1] if self.time.size else 0:g} s,"
                f" {len(self._data)} signals)")


class ResultsWriter:
    """Incremental, atomic writer: rows are appended to ``<path>.part`` and flushed every ``flush_every`` rows or
    ``flush_seconds`` of wall time (a crash keeps what was flushed); ``close`` renames it to ``path``."""

    def __init__(self, path: str, attributes: dict, model_data: dict | None = None, flush_every: int = 200,
                 flush_seconds: float = 1.0):
        self.path = str(path)
        self.flush_seconds = flush_seconds
        self._last_flush = _time.monotonic()
        self.part = self.path + ".part"
        self.flush_every = flush_every
        self._buffer: list = []
        self._datasets: dict = {}
        try:
            self.file = h5py.File(self.part, "w")
        except OSError as exc:
            raise FlexmbsError(f"cannot write results file {self.path!r}: {exc}") from None
        self.file.attrs["format"] = FORMAT_NAME
        self.file.attrs["format_version"] = FORMAT_VERSION
        self.file.attrs["created"] = _dt.datetime.now(_dt.timezone.utc).isoformat()
        self.file.attrs["status"] = "running"
        for key, value in attributes.items():
            self.file.attrs[key] = json.dumps(value) if isinstance(value, (dict, list)) else value
        if model_data:
            _write_tree(self.file.create_group("model"), model_data)
        self.file.flush()

    def _create(self, name, value, unit, components):
        shape = np.shape(value)
        ds = self.file.create_dataset(name, shape=(0,) + shape, maxshape=(None,) + shape, dtype="f8",
                                      chunks=(max(1, min(self.flush_every, 4096 // max(1, int(np.prod(shape))))),)
                                      + shape)
        ds.attrs["unit"] = unit
        if components:
            ds.attrs["components"] = ",".join(components)
        self._datasets[name] = ds

    def append(self, t: float, row: dict, units: dict, components: dict) -> None:
        if not self._datasets:
            self._create("time", t, "s", None)
            for name, value in row.items():
                self._create("signals/" + name, value, units[name], components.get(name))
        self._buffer.append((t, row))
        if len(self._buffer) >= self.flush_every or _time.monotonic() - self._last_flush > self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        if not self._buffer:
            return
        n_new = len(self._buffer)
        for name, ds in self._datasets.items():
            if name == "time":
                block = np.array([b[0] for b in self._buffer])
            else:
                key = name[len("signals/"):]
                block = np.array([b[1][key] for b in self._buffer])
            n_old = ds.shape[0]
            ds.resize(n_old + n_new, axis=0)
            ds[n_old:] = block
        self._buffer.clear()
        self.file.flush()
        self._last_flush = _time.monotonic()

    def close(self, status: str, message: str, statistics: dict) -> None:
        self.flush()
        self.file.attrs["status"] = status
        self.file.attrs["message"] = message
        grp = self.file.require_group("solver")
        for key, value in statistics.items():
            grp.attrs[key] = value
        self.file.close()
        os.replace(self.part, self.path)


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


def load_results(path: str) -> Results:
    """Read a ``*.results.h5`` file (also a ``.part`` file left by a crash)."""
    try:
        fh = h5py.File(path, "r")
    except (OSError, FileNotFoundError) as exc:
        raise FileFormatError(f"cannot open results file {path!r}: {exc}") from None
    with fh:
        if fh.attrs.get("format") != FORMAT_NAME:
            raise FileFormatError(f"{path!r} is not a flexmbs results file (format attribute missing)")
        if int(fh.attrs.get("format_version", -1)) > FORMAT_VERSION:
            raise FileFormatError(f"{path!r} has results format version {fh.attrs['format_version']}, this flexmbs "
                                  f"reads up to {FORMAT_VERSION}; upgrade flexmbs")
        time = fh["time"][()] if "time" in fh else np.zeros(0)
        data, units, comps = {}, {}, {}

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                data[name] = obj[()]
                units[name] = str(obj.attrs.get("unit", ""))
                if "components" in obj.attrs:
                    comps[name] = str(obj.attrs["components"]).split(",")

        if "signals" in fh:
            fh["signals"].visititems(visit)
        attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in fh.attrs.items()}
        stats = dict(fh["solver"].attrs) if "solver" in fh else {}
        status = str(attrs.get("status", "unknown"))
    for key in ("parameters",):
        if isinstance(attrs.get(key), str):
            try:
                attrs[key] = json.loads(attrs[key])
            except json.JSONDecodeError:
                pass
    return Results(time, data, units, comps, success=status == "finished", message=str(attrs.get("message", "")),
                   status=status, statistics={k: _plain(v) for k, v in stats.items()}, path=str(path),
                   attributes=attrs)


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bytes):
        return value.decode()
    return value
