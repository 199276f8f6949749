"""Study tables in pictures: axis labels with units, and the plot of outputs against a varied parameter.

A varied parameter's unit is the one its case declares (``flexmbs cases CASE`` lists them); an output's unit is read
from its name's last word, the convention of the cases' outputs (``settling_time_s`` → s, ``peak_force_N`` → N,
``pressure_peak_bar`` → bar). Columns without a declared or named unit are labelled ``[-]`` only if they are ratios
declared with unit ``1``; otherwise they keep their bare name (and the plot says no unit is known).
"""
from __future__ import annotations

import math

__all__ = ["BOOKKEEPING", "case_specs", "parameter_unit", "output_unit", "column_label", "output_columns", "plot_study"]

# columns of the study table that are not outputs of the machine
BOOKKEEPING = ("variant", "status", "error", "wall_s", "steps", "t_end", "max_constraint_violation", "results_file",
               "worker", "worker_pid")

# last word(s) of an output name -> unit
_SUFFIX_UNITS = {
    "s": "s", "ms": "ms", "m": "m", "mm": "mm", "um": "µm", "n": "N", "kn": "kN", "nm": "N m", "knm": "kN m",
    "pa": "Pa", "kpa": "kPa", "mpa": "MPa", "bar": "bar", "deg": "deg", "rad": "rad", "hz": "Hz", "j": "J",
    "kj": "kJ", "w": "W", "kw": "kW", "kg": "kg", "mps": "m/s", "m_s": "m/s", "rad_s": "rad/s", "deg_s": "deg/s",
    "lpm": "L/min", "l_min": "L/min", "m3_s": "m³/s", "percent": "%", "pct": "%", "ratio": "1",
}


def case_specs(case: str) -> dict:
    """``{key: metadata}`` a case declares (its TOML's ``DEFAULTS.specs`` and its Python ``PARAMETERS``); empty for
    a case that is not installed here."""
    try:
        from flexmbs.catalog.registry import get_case

        module = get_case(case)
    except Exception:  # the case is not installed here: no metadata
        return {}
    specs = {key: dict(spec) for key, spec in (getattr(module.DEFAULTS, "specs", {}) or {}).items()}
    for key, spec in (getattr(module, "PARAMETERS", {}) or {}).items():
        specs[key] = {**specs.get(key, {}), **spec}
    return specs


def parameter_unit(case: str, key: str) -> str | None:
    """The declared unit of parameter ``key`` of ``case`` (None if the case or the key declares none)."""
    return case_specs(case).get(key, {}).get("unit")


def output_unit(name: str) -> str | None:
    """The unit an output's name ends in (``settling_time_s`` → ``s``; of a nested output the innermost part that
    names one: ``peak_bar_force_kN.horizontal`` → ``kN``), or None."""
    for part in reversed(name.split(".")):
        words = part.split("_")
        for n in (2, 1):
            if len(words) > n:
                suffix = "_".join(words[-n:]).lower()
                if suffix in _SUFFIX_UNITS:
                    return _SUFFIX_UNITS[suffix]
    return None


def column_label(case: str, column: str) -> str:
    """``name [unit]`` of a study-table column (a declared parameter or an output named with its unit)."""
    unit = parameter_unit(case, column)
    if unit is None and column not in BOOKKEEPING:
        unit = output_unit(column)
    if column == "wall_s":
        unit = "s"
    if unit is None:
        return column
    return f"{column} [{'-' if unit in ('1', '') else unit}]"


def output_columns(frame, varied) -> list[str]:
    """Numeric output columns of a study table with at least one finite value (varied parameters and bookkeeping
    left out)."""
    return [column for column in frame.columns
            if column not in varied and column not in BOOKKEEPING and not column.startswith("run.")
            and frame[column].dtype.kind in "fiu" and frame[column].notna().any()]


def plot_study(groups, columns, against: str, scatter: bool, title: str, case: str = ""):
    """Outputs (one axis each) against a varied parameter, one line per group; axes say quantity and unit; the
    legend of the groups stands right of the plots. Returns the matplotlib figure.

    Parameters
    ----------
    groups : list of (label, DataFrame)
    columns : list of str        output columns
    against : str                the varied parameter on the x axis
    scatter : bool               markers only (Latin-hypercube samples)
    """
    from .render import pyplot

    labelled = any(label for label, _ in groups)
    fig, axes = pyplot().subplots(len(columns), 1, sharex=True, squeeze=False, layout="constrained",
                                  figsize=(7.0 + (2.4 if labelled else 0.0), 2.2 + 2.6 * len(columns)))
    for ax, column in zip(axes[:, 0], columns):
        for label, rows in groups:
            ax.plot(rows[against].to_numpy(float), rows[column].to_numpy(float), marker="o", label=label or None,
                    linestyle="none" if scatter else "-")
        ax.set_ylabel(column_label(case, column), fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel(column_label(case, against))
    fig.suptitle(title, fontsize=11)
    if labelled:
        axes[0, 0].legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                          ncol=max(1, math.ceil(len(groups) / 12)), frameon=False)
    return fig
