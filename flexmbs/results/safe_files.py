"""Output files that cannot be lost: writable-path checks before any work, an exclusive lock per target name,
unique temporaries beside the target renamed over it only when the output is complete, and the partial files an
unfinished run leaves behind.

Used by every ``flexmbs`` command that writes a file and by :class:`flexmbs.results.results.ResultsWriter`.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import os
import tempfile

import numpy as np

from fem.errors import FlexmbsError

__all__ = ["check_writable", "output_lock", "atomic_output", "partial_files", "part_path"]

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


@contextlib.contextmanager
def atomic_output(path: str, option: str = "output"):
    """Yield a unique temporary name beside ``path`` with the same suffix (writers that pick the format from the
    suffix keep working); on success it replaces ``path``, on any error it is removed and ``path`` is untouched.
    The target name is locked meanwhile."""
    full = check_writable(path, option)
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
            os.replace(tmp, full)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                raise FlexmbsError(f"cannot write {path!r}: {exc.strerror} (free some space); the previous file "
                                   "is unchanged") from None
            raise
        finally:
            if os.path.exists(tmp):
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


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
