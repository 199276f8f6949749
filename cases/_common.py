"""Helpers shared by the cases: each case's ``DEFAULTS`` and ``parameters``, its simulation, the summary its ``run``
returns and matplotlib for the figures."""
from __future__ import annotations

import os

from flexmbs.catalog.parameters import load_toml_defaults, override_defaults


def toml_defaults(module_file: str, name: str):
    """A case's ``DEFAULTS`` (values and their declared metadata) from the TOML file ``name`` beside
    ``module_file`` (:func:`load_toml_defaults`)."""
    return load_toml_defaults(os.path.join(os.path.dirname(module_file), name))


def case_parameters(name: str, defaults: dict, choices: dict | None = None):
    """The case's ``parameters(params=None)``: ``defaults`` updated with ``params`` (converted to the default's
    type); unknown keys and values outside ``choices`` are a ModelError (:func:`override_defaults`)."""
    def parameters(params: dict | None = None) -> dict:
        """``DEFAULTS`` updated with ``params`` (converted to the default's type); unknown keys are a ModelError."""
        return override_defaults(name, defaults, params, choices)

    return parameters


def simulate_run(name: str, model, t_end: float, p: dict, out: str | None = None, progress: bool = False,
                  label: str | None = None, **options):
    """``flexmbs.simulate`` of a case's run (``case=name``, ``parameters=p``, results file ``out``, solver
    ``options``); a failed run raises SimulationError ``"<label or name>: <message>"`` that names the file keeping
    the results up to the failure."""
    import flexmbs as fm

    res = fm.simulate(model, t_end, output=out, progress=progress, case=name, parameters=p, **options)
    if not res.success:
        kept = f"; results up to t = {res.time[-1]:.6g} s are in {res.path or out}" if out else ""
        raise fm.SimulationError(f"{label or name}: {res.message}{kept}")
    return res


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (files only, no display), imported on first use."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: str, dpi: int = 90) -> str:
    """Lay ``fig`` out, write it to ``path`` (PNG) and close it; returns ``path``."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path


def run_summary(case: str, res, outputs: dict, wall_s: float | None = None, **extra) -> dict:
    """The JSON-able summary of a case's ``run``: ``case``, ``t_end`` (the last sample), ``steps``, the ``extra``
    keys, ``wall_s`` (default: the solver's wall time), ``max_constraint_violation`` and ``outputs``."""
    stats = res.statistics
    return {"case": case, "t_end": float(res.time[-1]), "steps": int(stats.get("steps", 0)), **extra,
            "wall_s": float(stats.get("wall_time_s", 0.0)) if wall_s is None else wall_s,
            "max_constraint_violation": float(stats.get("max_constraint_violation", 0.0)), "outputs": outputs}
