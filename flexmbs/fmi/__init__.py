"""FMI (issue 47): a flexmbs machine as a co-simulation FMU (:func:`export_fmu`), and FMUs inside a flexmbs model
(:class:`FMU`). docs/fmi.md has a worked example each way.

The exported FMU is a *tool-coupling* FMU (built with pythonfmu): its binary starts Python, and Python must have
flexmbs (and its dependencies) installed on the machine that runs it. FMUs are loaded with FMPy.
"""
from __future__ import annotations

__all__ = ["export_fmu", "FMU"]


def __getattr__(name: str):
    import importlib

    homes = {"export_fmu": ".export", "FMU": ".imports"}
    if name in homes:
        value = getattr(importlib.import_module(homes[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'flexmbs.fmi' has no attribute {name!r}")
