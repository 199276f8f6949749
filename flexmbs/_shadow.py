"""Detect a user's file that hides one of the project's packages (``fem.py``, ``cases.py`` next to a script).

Imports nothing of the project, so :mod:`flexmbs` can run it before importing :mod:`fem`.
"""
from __future__ import annotations

import importlib.util
import os
import sys

__all__ = ["shadowing_message", "PACKAGES"]

PACKAGES = ("fem", "reduction", "flexmbs", "hydraulics", "cases")


def shadowing_message(packages=PACKAGES) -> str | None:
    """One line naming the first module that hides a project package (a ``NAME.py`` or a foreign ``NAME/``
    earlier on ``sys.path``), or None."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the folder of the project's packages
    for name in packages:
        module = sys.modules.get(name)
        origin = getattr(module, "__file__", None) if module is not None else None
        if module is None:
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                spec = None
            origin = spec.origin if spec is not None else None
        if not origin:
            continue
        origin = os.path.abspath(origin)
        expected = os.path.join(root, name, "__init__.py")
        if origin != expected and os.path.exists(expected):
            return (f"{origin!r} hides flexmbs's package {name!r} (it comes first on the import path); rename "
                    f"your file or run from another folder")
    return None
