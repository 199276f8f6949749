"""The cache of reduced flexible bodies the machine cases build (meshing and Craig–Bampton reduction take seconds
to minutes): ``$FLEXMBS_CACHE``, or ``~/.cache/flexmbs`` when unset. ``flexmbs info --cache`` shows it. An unusable
folder is one line naming ``FLEXMBS_CACHE`` (:func:`cache_dir`); a damaged entry is removed with a one-line note and
rebuilt by the case (:func:`drop_damaged`), not an error telling the user to re-run a command they never ran. See
docs/safety.md ("The cache").
"""
from __future__ import annotations

import os
import sys

from fem.errors import FileFormatError, FlexmbsError

__all__ = ["CACHE_VARIABLE", "cache_dir", "drop_damaged", "cache_info"]

CACHE_VARIABLE = "FLEXMBS_CACHE"


def _location() -> tuple[str, str]:
    value = os.environ.get(CACHE_VARIABLE)
    if value:
        return os.path.abspath(os.path.expanduser(value)), f"${CACHE_VARIABLE}"
    return os.path.join(os.path.expanduser("~"), ".cache", "flexmbs"), f"default (${CACHE_VARIABLE} unset)"


def cache_dir(create: bool = True) -> str:
    """The cache folder (created); a one-line :class:`FlexmbsError` when it cannot be used."""
    path, origin = _location()
    where = f"the flexmbs cache {path!r} ({origin})"
    if os.path.exists(path) and not os.path.isdir(path):
        raise FlexmbsError(f"{where} is a file, not a folder: set {CACHE_VARIABLE} to a folder (or remove the file)")
    if create:
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as exc:
            raise FlexmbsError(f"{where} cannot be created ({exc.strerror}): set {CACHE_VARIABLE} to a writable "
                               "folder") from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise FlexmbsError(f"{where} is not writable: set {CACHE_VARIABLE} to a writable folder")
    return path


def drop_damaged(path: str, log=None) -> bool:
    """Remove the cache entry ``path`` (a ``*.flex.h5``) if it cannot be read, saying so in one line (the caller
    then rebuilds it); True if it was removed."""
    if not os.path.exists(path):
        return False
    from reduction.io import read_flexbody

    try:
        read_flexbody(path)
        return False
    except FileFormatError as exc:  # its text ends in "re-run flexmbs reduce": not what a cache user should do
        reason = str(exc).replace(repr(path), "").split(" (")[0].split(";")[0].split(": ")[0].strip()
        reason = reason.removeprefix("is ").removeprefix("has ") or "unreadable"
    try:
        os.remove(path)
    except OSError as exc:
        raise FlexmbsError(f"the cache entry {path!r} is damaged and cannot be removed ({exc.strerror}); remove it "
                           "by hand") from None
    text = f"note: the cache entry {os.path.basename(path)} was damaged ({reason}); rebuilding it"
    (log or (lambda m: print(m, file=sys.stderr)))(text)
    return True


def cache_info() -> dict:
    """Folder, origin, entries (name, bytes) and total size of the cache (nothing is created)."""
    path, origin = _location()
    names = sorted(os.listdir(path)) if os.path.isdir(path) else []
    entries = [{"name": name, "bytes": os.path.getsize(os.path.join(path, name))} for name in names
               if os.path.isfile(os.path.join(path, name))]
    usable = os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK) or not os.path.exists(path)
    return {"folder": path, "origin": origin, "variable": CACHE_VARIABLE, "exists": os.path.isdir(path),
            "usable": bool(usable), "entries": entries, "total_bytes": sum(e["bytes"] for e in entries)}
