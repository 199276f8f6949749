"""Output files that cannot be lost: writable-path checks before any work, an exclusive lock per target name,
unique temporaries beside the target renamed over it only when the output is complete, and the partial files an
unfinished run leaves behind.

Used by every ``flexmbs`` command that writes a file and by :class:`flexmbs.results.results.ResultsWriter`.
"""
from __future__ import annotations

import contextlib
import csv
import errno
import fcntl
import glob
import io
import os
import tempfile

import numpy as np

from fem.errors import FlexmbsError

__all__ = ["check_writable", "output_lock", "atomic_output", "partial_files", "part_path", "open_output",
           "write_bytes", "write_rows", "free_bytes", "disk_full_reason", "ENOSPC_TEST_VARIABLE"]

ENOSPC_TEST_VARIABLE = "FLEXMBS_TEST_ENOSPC_AT"  # tests: every file flexmbs writes fills the disk at this byte
_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_FULL_TEXTS = (("No space left", "disk full (no space left on device)"),
               ("File too large", "file size limit reached (file too large)"),
               ("file too large", "file size limit reached (file too large)"),
               ("Disk quota", "disk quota exceeded"))

_HELD: dict[str, list] = {}  # absolute target -> [fd, count]: locks this process holds (re-entrant)


def check_writable(path: str, option: str = "output", suffixes: tuple[str, ...] | None = None) -> str:
    """Raise a one-line :class:`FlexmbsError` unless ``path`` can be written (folder exists and is writable, the
    path is not a folder, an existing file is writable, the suffix is one of ``suffixes``); returns the absolute
    path. Call it before any work."""
    if not path or not str(path).strip():
        raise FlexmbsError(f"{option}: give a file name")
    path = os.fspath(path)
    if suffixes is not None and not path.lower().endswith(tuple(s.lower() for s in suffixes)):
        raise FlexmbsError(f"cannot write {path!r} ({option}): the name must end in {', '.join(suffixes)}")
    full = os.path.abspath(path)
    folder = os.path.dirname(full)
    if os.path.isdir(full):
        raise FlexmbsError(f"cannot write {path!r} ({option}): it is a folder; give a file name")
    if not os.path.isdir(folder):
        raise FlexmbsError(f"cannot write {path!r} ({option}): folder {folder!r} does not exist; create it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FlexmbsError(f"cannot write {path!r} ({option}): folder {folder!r} is not writable")
    if os.path.exists(full) and not os.access(full, os.W_OK):
        raise FlexmbsError(f"cannot write {path!r} ({option}): the existing file is read-only")
    return full


def _lock_name(full: str) -> str:
    return full + ".lock"


def _acquire(full: str) -> None:
    held = _HELD.get(full)
    if held is not None:
        held[1] += 1
        return
    name = _lock_name(full)
    for _ in range(20):
        try:
            fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise FlexmbsError(f"cannot write {full!r}: cannot create the lock file {name!r} ({exc.strerror})") \
                from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                other = os.read(fd, 64).decode(errors="replace").strip() or "unknown"
            finally:
                os.close(fd)
            raise FlexmbsError(f"{full!r} is being written by another flexmbs run (pid {other}); wait for it or "
                               "choose another output name") from None
        try:  # the holder may have unlinked the lock file between our open and our flock: retry on a fresh one
            same = os.fstat(fd).st_ino == os.stat(name).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            _HELD[full] = [fd, 1]
            return
        os.close(fd)
    raise FlexmbsError(f"cannot lock {full!r}: the lock file {name!r} keeps changing")


def _release(full: str) -> None:
    held = _HELD.get(full)
    if held is None:
        return
    held[1] -= 1
    if held[1] > 0:
        return
    del _HELD[full]
    with contextlib.suppress(OSError):
        os.unlink(_lock_name(full))
    os.close(held[0])


@contextlib.contextmanager
def output_lock(path: str | None):
    """Hold an exclusive lock on the output name ``path`` (``<path>.lock``, an ``flock`` the kernel releases when
    the process dies, so a killed run never blocks the next one); a second run on the same name gets a one-line
    error naming the first one's pid. Re-entrant within a process; ``None`` locks nothing."""
    if path is None:
        yield None
        return
    full = os.path.abspath(os.fspath(path))
    _acquire(full)
    try:
        yield full
    finally:
        _release(full)


def part_path(path: str) -> str:
    """The unique temporary of this process for the target ``path``: ``<path>.<pid>.part`` beside it."""
    return f"{os.fspath(path)}.{os.getpid()}.part"


def partial_files(path: str) -> list[str]:
    """Partial files unfinished runs left for the target ``path`` (newest first)."""
    found = glob.glob(glob.escape(os.fspath(path)) + ".*.part") + glob.glob(glob.escape(os.fspath(path)) + ".part")
    return sorted(found, key=os.path.getmtime, reverse=True)


def disk_full_reason(exc: BaseException) -> str | None:
    """``"disk full (...)"`` and the like when ``exc`` (an OSError, or h5py's RuntimeError text) is a full disk, a
    file-size limit or a quota; None otherwise."""
    if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
        return {errno.ENOSPC: _FULL_TEXTS[0][1], errno.EFBIG: _FULL_TEXTS[1][1]}.get(exc.errno, _FULL_TEXTS[3][1])
    text = str(exc)
    for marker, short in _FULL_TEXTS:
        if marker in text:
            return short
    return None


def _test_budget() -> int | None:
    value = os.environ.get(ENOSPC_TEST_VARIABLE)
    return int(value) if value else None


class _BudgetFile:
    """A binary file that raises ENOSPC once ``budget`` bytes are in it (the full-disk test of docs/safety.md)."""

    def __init__(self, handle, budget: int):
        self._handle, self._budget = handle, budget

    def write(self, data) -> int:
        data = data.encode() if isinstance(data, str) else data
        room = self._budget - self._handle.tell()
        if len(data) > room:
            self._handle.write(bytes(data)[:max(room, 0)])
            self._handle.flush()
            raise OSError(errno.ENOSPC, "No space left on device", self._handle.name)
        return self._handle.write(data)

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._handle.close()


def open_output(path: str, mode: str = "w", **kwargs):
    """``open(path, mode)`` for writing; with ``FLEXMBS_TEST_ENOSPC_AT=N`` set (tests) a file that raises ENOSPC
    at byte N. Use it for every file flexmbs writes through Python."""
    budget = _test_budget()
    if budget is None:
        return open(path, mode, **kwargs)
    handle = open(path, mode.replace("t", "").rstrip("b") + "b")
    wrapped = _BudgetFile(handle, budget)
    if "b" in mode:
        return wrapped
    return io.TextIOWrapper(_Raw(wrapped), encoding=kwargs.get("encoding") or "utf-8",
                            newline=kwargs.get("newline"), write_through=True)


class _Raw(io.RawIOBase):
    """The raw-stream face of a :class:`_BudgetFile` for :class:`io.TextIOWrapper` (write only)."""

    def __init__(self, budget_file):
        self._file = budget_file

    def writable(self):
        return True

    def write(self, data):
        return self._file.write(data)

    def flush(self):
        self._file.flush()

    def close(self):
        if not self.closed:
            super().close()  # (flushes)
            self._file.close()


def write_bytes(path: str, data) -> None:
    """Write ``data`` (bytes or a buffer) to ``path`` and flush it to the disk (a full disk raises OSError)."""
    with open_output(path, "wb") as handle:
        handle.write(memoryview(data))
        handle.flush()
        os.fsync(handle.fileno())


def write_rows(handle, header: list, rows) -> None:
    """CSV on an open text ``handle``: the ``header`` row, then ``rows`` (cells formatted by the caller)."""
    writer = csv.writer(handle)
    writer.writerow(header)
    writer.writerows(rows)


def free_bytes(path: str) -> float:
    """Bytes the file ``path`` may still grow by: free space of its folder, the process's file-size limit
    (RLIMIT_FSIZE) and, in tests, ``FLEXMBS_TEST_ENOSPC_AT``."""
    import resource

    folder = os.path.dirname(os.path.abspath(path))
    stat = os.statvfs(folder)
    room = float(stat.f_bavail * stat.f_frsize)
    size = os.path.getsize(path) if os.path.exists(path) else 0
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY:
        room = min(room, float(limit - size))
    budget = _test_budget()
    if budget is not None:
        room = min(room, float(budget - size))
    return room


@contextlib.contextmanager
def atomic_output(path: str, option: str = "output", kind: str | None = None, force: bool = False, inputs=(),
                  verify=None, force_hint: str = " (or add --force)"):
    """Yield a unique temporary name beside ``path`` with the same suffix (writers that pick the format from the
    suffix keep working); on success it replaces ``path``, on any error it is removed and ``path`` is untouched.
    The target name is locked meanwhile. ``kind``: the file kind written (:mod:`flexmbs.results.file_kinds`):
    an existing file of another kind, or one of ``inputs``, is not replaced unless ``force``. ``verify(tmp)``:
    raises if the written file is incomplete (writers that do not report a full disk, such as gmsh)."""
    full = check_writable(path, option)
    if kind is not None:
        from .file_kinds import check_replace

        check_replace(full, kind, force=force, inputs=inputs, option=option, force_hint=force_hint)
    folder, base = os.path.split(full)
    stem, suffix = os.path.splitext(base)
    with output_lock(full):
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=f".tmp{suffix}", dir=folder)
        os.close(fd)
        os.unlink(tmp)  # writers create it themselves (some refuse to overwrite)
        try:
            yield tmp
            if not os.path.exists(tmp):
                raise FlexmbsError(f"writing {path!r} produced no file")
            _check_complete(tmp, verify)
            os.replace(tmp, full)
        except (OSError, RuntimeError, ValueError) as exc:
            reason = disk_full_reason(exc)
            if reason is not None:
                raise FlexmbsError(f"cannot write {path!r}: {reason}; free some space; the previous file is "
                                   f"{'unchanged' if os.path.exists(full) else 'not there (none was written)'}") \
                    from None
            raise
        finally:
            if os.path.exists(tmp):
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


def _check_complete(tmp: str, verify) -> None:
    """Flush the temporary to the disk, apply the test budget to writers outside Python and run ``verify``."""
    budget = _test_budget()
    if budget is not None and os.path.getsize(tmp) > budget:  # a C writer (gmsh, HDF5, pyarrow) hit the budget
        os.truncate(tmp, budget)
        raise OSError(errno.ENOSPC, "No space left on device", tmp)
    with open(tmp, "rb") as handle:
        os.fsync(handle.fileno())
    if verify is not None:
        verify(tmp)


def resolve_results(path: str, log=None) -> str:
    """The results file to read for ``path``: ``path`` itself, or the newest ``.part`` an unfinished run left
    for it (said on stderr through ``log``); a one-line error when there is neither."""
    if os.path.exists(path):
        return path
    partial = partial_files(path)
    if not partial:
        raise FlexmbsError(f"results file {path!r} does not exist (run `flexmbs run CASE -o {path}` first)")
    if log is not None:
        log(f"warning: {path!r} does not exist; reading {partial[0]!r}, the partial file of an unfinished run "
            "(killed, failed to finish, or still running)")
    return partial[0]


def json_default(value):
    """``json.dump(..., default=json_default)``: numpy arrays and scalars as lists and numbers, complex numbers as
    ``[real, imag]`` (the one converter of every JSON the project writes)."""
    if isinstance(value, np.ndarray):
        return [json_default(v) for v in value.tolist()] if value.dtype.kind == "c" else value.tolist()
    if isinstance(value, complex):
        return [value.real, value.imag]
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    if isinstance(value, np.complexfloating):
        return [float(value.real), float(value.imag)]
    raise TypeError(f"cannot serialize {type(value).__name__}")
