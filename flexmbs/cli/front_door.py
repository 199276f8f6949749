"""The CLI's front door: turn whatever escapes a command into one line, and check the import path.

See :class:`flexmbs.cli.app._Group`; ``flexmbs --debug`` (or ``FLEXMBS_DEBUG=1``) shows the traceback instead.
"""
from __future__ import annotations

import errno

import numpy as np

from fem.errors import FlexmbsError

from flexmbs._shadow import shadowing_message

__all__ = ["check_shadowing", "describe_unexpected"]


def check_shadowing() -> None:
    """Raise a one-line :class:`FlexmbsError` if a user's ``fem.py``/``cases.py``/... hides a project package."""
    message = shadowing_message()
    if message:
        raise FlexmbsError(message)


def describe_unexpected(exc: BaseException) -> str:
    """One line for an exception that is not a :class:`FlexmbsError`: its likely cause and what to do."""
    text = " ".join(str(exc).split())[:300]
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return f"disk full while writing {exc.filename or 'a file'!r} ({exc.strerror}); free some space"
    if isinstance(exc, OSError):
        where = f" {exc.filename!r}" if exc.filename else ""
        return f"cannot access{where}: {exc.strerror or text}"
    if isinstance(exc, ImportError):
        missing = getattr(exc, "name", None) or text
        return (f"a package flexmbs needs here is not installed ({text}): pip install {missing.split('.')[0]} "
                "(or reinstall flexmbs with its dependencies: pip install flexmbs, extras [video], [ansys], [op4])")
    if isinstance(exc, MemoryError):
        return "out of memory: reduce the mesh size, the number of modes or the output rate"
    if isinstance(exc, np.linalg.LinAlgError) or "did not converge" in text or "singular" in text.lower():
        return (f"numerical failure ({text}): a parameter is probably out of range (inf, nan, zero or huge); "
                "check the values you set")
    if isinstance(exc, (FloatingPointError, OverflowError, ZeroDivisionError)):
        return f"numerical failure ({type(exc).__name__}: {text}): check the values you set"
    return (f"unexpected {type(exc).__name__}: {text} (a bug or an unchecked input; rerun with `flexmbs --debug "
            "...` and report the traceback)")
