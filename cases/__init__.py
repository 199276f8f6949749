"""Machine cases: one subpackage per case, discovered automatically.

A case is a subpackage ``cases/<module_name>/`` whose ``__init__.py`` defines

* ``NAME`` — the name on the command line (``flexmbs run NAME``), e.g. ``"slider-crank"``;
* ``DESCRIPTION`` — one line for ``flexmbs cases``;
* ``DEFAULTS`` — dict of parameters in SI units (often loaded from a TOML file beside it);
* ``run(params: dict, t_end: float | None, out: str | None, progress: bool) -> dict`` — runs the case and returns a
  JSON-able dict with at least ``case, t_end, steps, wall_s, max_constraint_violation, outputs``.

Optional, for ``flexmbs linearize CASE`` (docs/linearization.md):

* ``linearization(params: dict) -> dict`` — ``params`` are the ``--set`` overrides (merge them with ``DEFAULTS``
  as ``run`` does); returns ``{"model": flexmbs.Model, "at": "static" | T (s) | "RUN.results.h5@T",
  "inputs": [names] or {alias: name}, "outputs": [names] or {alias: name}}`` and optionally ``"coordinates"``
  (names of the minimal coordinates) and ``"simulate_options"`` (keywords of ``flexmbs.simulate`` used when ``at``
  is a time). Input names: ``element/<element>/<signal>`` (e.g. ``element/hydraulics/valve.command``),
  ``force/<force>`` (a JointActuator's load), ``force/<force>/Fx``; output names are results-file signal names
  with their component (``joint/<joint>/rotation``, ``element/<element>/V2.pressure``, ``body/<b>/position/x``).

:func:`registry` maps names to modules. The ``flexmbs`` command finds this collection through the entry point
``builtin = "cases"`` of the group ``flexmbs.cases`` (pyproject.toml; see :mod:`flexmbs.catalog.registry`), so a new case
subpackage here needs no registration of its own. ``parse_assignments`` and ``parse_value`` live in
:mod:`flexmbs.catalog.registry` and are re-exported here.

Parameters can be declared with metadata, in one place (the case's TOML file or a ``PARAMETERS`` dict), so that
``flexmbs run`` checks them before any work. In TOML a plain ``key = value  # comment`` stays valid; a declared
parameter is an inline table with a ``value`` and any of :data:`SPEC_FIELDS`::

    supply_pressure = {value = 28.0e6, unit = "Pa", gt = 0, max = 1e8, provenance = "seed",
                       source = "seed 001 §3", description = "rated pressure of the constant-pressure pumps"}

``min``/``max`` are inclusive bounds, ``gt``/``lt`` exclusive ones, ``integer = true`` rejects fractional values;
NaN and infinity are rejected for every numeric parameter, declared or not, and an integer default only takes
integers.
"""
from __future__ import annotations

import importlib
import pkgutil

from fem.errors import ModelError
from flexmbs.catalog.parameters import (  # noqa: F401  (moved to flexmbs; kept importable here)
    PROVENANCE, SPEC_FIELDS, Defaults, check_parameter, load_toml_defaults, parameter_specs, validate_parameters)
from flexmbs.catalog.registry import parse_assignments, parse_value  # noqa: F401  (moved to flexmbs; kept importable here)

__all__ = ["registry", "get_case", "parse_value", "parse_assignments", "load_toml_defaults", "Defaults",
           "SPEC_FIELDS", "parameter_specs", "validate_parameters"]

_REQUIRED = ("NAME", "DESCRIPTION", "DEFAULTS", "run")


def registry() -> dict:
    """``{case name: case module}`` of every subpackage of :mod:`cases` that defines the case interface."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if not info.ispkg or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if all(hasattr(module, attr) for attr in _REQUIRED):
            found[module.NAME] = module
    return dict(sorted(found.items()))


def get_case(name: str):
    """The case module called ``name``; a clear error lists the known cases otherwise."""
    cases = registry()
    if name not in cases:
        raise ModelError(f"unknown case {name!r}; known cases: {', '.join(cases) or 'none'} (see `flexmbs cases`)")
    return cases[name]
