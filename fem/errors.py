"""Exceptions a user can cause, shared by every flexmbs package.

They live in ``fem`` because it is the bottom of the import graph; ``flexmbs`` re-exports them. The CLI prints
any :class:`FlexmbsError` as one line on stderr and exits non-zero, without a traceback.
"""


class FlexmbsError(Exception):
    """Base class of every error a user can cause; the message says what to change."""


class MeshError(FlexmbsError):
    """A mesh file that cannot be read or used (missing, no volume cells, inverted or unsupported elements)."""


class SelectionError(FlexmbsError):
    """A node selector that is malformed or matches no node."""


class MaterialError(FlexmbsError):
    """An unknown material name or non-physical material values."""


class ModelError(FlexmbsError):
    """A model that cannot be analysed (singular, disconnected, inconsistent)."""


class FileFormatError(FlexmbsError):
    """A flexmbs data file (FlexBody, results) that is damaged, truncated or of another version."""


class SimulationError(FlexmbsError):
    """A simulation that cannot proceed (divergent Newton iteration, singular Jacobian)."""


# --- warnings as one line (issue 44) ------------------------------------------------------------------------
# Python prints a warning as "/path/file.py:261: Category: message" plus the source line; the CLI prints
# "warning: message". Importing any flexmbs package makes Python print the project's warnings the CLI's way, as
# "warning: Category: message" on one line: warnings whose category is defined in a project package, or raised
# from a project file. Every other warning keeps Python's format. Filters (warnings.simplefilter) are untouched.
import os as _os
import warnings as _warnings

PROJECT_PACKAGES = ("fem", "reduction", "flexmbs", "hydraulics", "cases")
_ROOT = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
_PROJECT_DIRS = tuple(_os.path.join(_ROOT, name) + _os.sep for name in PROJECT_PACKAGES)
_python_format = _warnings.formatwarning


def one_line_warning(message, category, filename, lineno, line=None) -> str:
    """``warning: Category: message`` (whitespace and line breaks of the message folded) for the project's
    warnings; Python's own format for the others."""
    ours = (getattr(category, "__module__", "").split(".")[0] in PROJECT_PACKAGES
            or _os.path.abspath(str(filename)).startswith(_PROJECT_DIRS))
    if not ours:
        return _python_format(message, category, filename, lineno, line)
    return f"warning: {category.__name__}: {' '.join(str(message).split())}\n"


def install_one_line_warnings() -> None:
    """Make :func:`one_line_warning` Python's warning format (idempotent)."""
    if _warnings.formatwarning is not one_line_warning:
        _warnings.formatwarning = one_line_warning


install_one_line_warnings()
