"""Signal histories from a results file: pick signals by name, plot them with engineering units, write CSV.

Signals are addressed as :func:`flexmbs.load_results` names them (the dataset path below ``/signals``, e.g.
``body/crank/position``), optionally with the ``signals/`` prefix ``flexmbs info`` shows and optionally with a
component (``body/crank/position/y``, ``body/flex/modal_coordinates/q2`` or an index ``…/position/1``). Files keep SI
units; plots show lengths in mm, forces in kN, torques in kN m, pressures in bar, flows in L/min and angles in deg.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np

from fem.errors import FlexmbsError

from flexmbs.post.durability import COMPONENTS
from flexmbs.results.safe_files import write_rows

from .render import pyplot, save_figure

__all__ = ["Series", "DISPLAY_UNITS", "display_unit", "quantity", "axis_quantity", "unwrapped", "select_signals", "plot_signals", "write_signals_csv",
           "plot_stress", "write_stress_csv"]

# SI unit in the file -> (unit shown in plots, factor applied to the SI values)
DISPLAY_UNITS = {
    "m": ("mm", 1e3), "m/s": ("mm/s", 1e3), "m/s^2": ("mm/s²", 1e3),
    "N": ("kN", 1e-3), "N m": ("kN m", 1e-3), "N/m": ("kN/mm", 1e-6),
    "Pa": ("bar", 1e-5), "m^3/s": ("L/min", 6e4), "m^3": ("L", 1e3),
    "rad": ("deg", 180.0 / np.pi), "rad/s": ("deg/s", 180.0 / np.pi), "W": ("kW", 1e-3), "J": ("kJ", 1e-3),
}


def display_unit(unit: str) -> tuple[str, float]:
    """Plot unit and factor for an SI unit (unchanged if there is no rule)."""
    return DISPLAY_UNITS.get(unit.strip(), (unit, 1.0))


@dataclass
class Series:
    """One column: ``name`` (signal or signal/component), SI ``unit``, ``values`` (n_t,)."""

    name: str
    unit: str
    values: np.ndarray


def _components(results, name: str, width: int) -> list[str]:
    comps = list(results.components.get(name) or [])
    return comps if len(comps) == width else [str(k) for k in range(width)]


def _all_names(results) -> list[str]:
    names = []
    for name in results.signals():
        arr = results[name]
        names.append(name)
        if arr.ndim == 2:
            names += [f"{name}/{c}" for c in _components(results, name, arr.shape[1])]
    return names


def _not_requested(results, name: str) -> None:
    """Raise the results' own one line for a signal the run did not request (flexmbs.results.outputs)."""
    from flexmbs.results.outputs import NotRecordedError

    if results.attributes.get("outputs") is not None:
        try:
            results[name]
        except NotRecordedError:
            raise
        except FlexmbsError:
            pass


def select_signals(results, names) -> list[Series]:
    """Resolve signal names (with optional component) to columns; unknown names get close matches in the error."""
    if not names:
        raise FlexmbsError("name at least one signal (flexmbs info RESULTS lists them with their units)")
    out: list[Series] = []
    for raw in names:
        name = raw.strip().strip("/")
        name = name[len("signals/"):] if name.startswith("signals/") else name
        if name in results:
            arr = np.asarray(results[name], dtype=float)
            unit = results.units.get(name, "")
            if arr.ndim == 1:
                out.append(Series(name, unit, arr))
            else:
                arr = arr.reshape(arr.shape[0], -1)
                comps = _components(results, name, arr.shape[1])
                out += [Series(f"{name}/{c}", unit, arr[:, k]) for k, c in enumerate(comps)]
            continue
        base, _, comp = name.rpartition("/")
        if base and base in results and np.ndim(results[base]) == 2:
            arr = np.asarray(results[base], dtype=float)
            comps = _components(results, base, arr.shape[1])
            if comp in comps or (comp.isdigit() and int(comp) < arr.shape[1]):
                k = comps.index(comp) if comp in comps else int(comp)
                out.append(Series(f"{base}/{comps[k]}", results.units.get(base, ""), arr[:, k]))
                continue
            raise FlexmbsError(f"signal {base!r} has no component {comp!r}; its components are {', '.join(comps)}")
        _not_requested(results, name)
        candidates = _all_names(results)
        close = difflib.get_close_matches(name, candidates, n=5, cutoff=0.5)
        close += [c for c in candidates if name.split("/")[-1] and c.endswith("/" + name.split("/")[-1])
                  and c not in close][: 5 - len(close)]
        hint = f"; did you mean {', '.join(close)}?" if close else "; flexmbs info RESULTS lists the signals"
        raise FlexmbsError(f"no signal {raw!r} in the results{hint}")
    return out


def _write_columns(path: str, columns: list[tuple[str, np.ndarray]]) -> str:
    """CSV of ``(header, values (n,))`` columns, full double precision."""
    with open(path, "w", newline="") as fh:
        write_rows(fh, [c[0] for c in columns],
                   ([repr(float(x)) for x in row] for row in zip(*[c[1] for c in columns])))
    return path


def write_signals_csv(time: np.ndarray, series: list[Series], path: str) -> str:
    """CSV with ``time [s]`` and one column per series, header ``name [SI unit]``, full double precision."""
    return _write_columns(path, [("time [s]", time)] + [(f"{s.name} [{s.unit}]", s.values) for s in series])


def _figure(window_size, rows=1, sharex=False):
    dpi = 100
    fig, axes = pyplot().subplots(rows, 1, figsize=(window_size[0] / dpi, window_size[1] / dpi), dpi=dpi,
                                  squeeze=False, sharex=sharex, layout="constrained")
    return fig, axes[:, 0]


def quantity(name: str) -> str:
    """What a signal measures, from its name: ``body/crank/position/y`` → ``position y``,
    ``joint/pivot/rotation`` → ``rotation``, ``circuit/boom/pressure_A`` → ``pressure A``."""
    parts = [p for p in name.split("/") if p]
    if len(parts) >= 2 and parts[-2] in _VECTOR_QUANTITIES:
        return f"{parts[-2].replace('_', ' ')} {parts[-1]}"
    return parts[-1].replace("_", " ") if parts else name


_VECTOR_QUANTITIES = {"position", "velocity", "acceleration", "orientation", "force", "moment", "torque",
                      "angular_velocity", "modal_coordinates", "reaction_force", "reaction_moment"}


def axis_quantity(names) -> str:
    """What an axis shows for the signals ``names``: their quantities without the components (``position``,
    ``position, velocity``), ``value`` for more than three."""
    bases = []
    for name in names:
        parts = [p for p in name.removesuffix(" (unwrapped)").split("/") if p]
        base = parts[-2] if len(parts) >= 2 and parts[-2] in _VECTOR_QUANTITIES else (parts[-1] if parts else name)
        bases.append(base.replace("_", " "))
    bases = list(dict.fromkeys(bases))
    return ", ".join(bases) if len(bases) <= 3 else "value"


def unwrapped(series: Series) -> Series:
    """An angle (SI unit rad) without the ±π jumps of its stored branch (``numpy.unwrap``); other signals as they
    are. The name says ``(unwrapped)`` when a jump was removed."""
    if series.unit.strip() != "rad" or series.values.size < 2:
        return series
    values = np.unwrap(series.values)
    if np.allclose(values, series.values, rtol=0.0, atol=1e-12):
        return series
    return Series(f"{series.name} (unwrapped)", series.unit, values)


def _legend_outside(ax, n_entries: int) -> None:
    """A legend right of the axes (never over the curves); one column up to 12 entries."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=8,
              ncol=1 if n_entries <= 12 else 2, frameon=False)


def _fit_ylabels(fig, axes) -> None:
    """A y label taller than its axes gets its unit on a second line, then a smaller font, so that stacked axes'
    labels never run into each other."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        label = ax.yaxis.label
        room = ax.get_window_extent(renderer).height
        if label.get_window_extent(renderer).height <= room:
            continue
        text = label.get_text()
        if " [" in text and "\n" not in text:
            label.set_text(text.replace(" [", "\n[", 1))
        size = label.get_fontsize()
        while label.get_window_extent(renderer).height > room and size > 5:
            size -= 1
            label.set_fontsize(size)


def plot_signals(time: np.ndarray, series: list[Series], path: str | None = None, window_size=(1000, 600),
                 title: str = ""):
    """Signals over time, one axis per display unit (stacked); the y axis says the quantity and its unit, angles
    are unwrapped (and say so), the legend stands right of the curves.

    Returns the matplotlib figure (saved to ``path`` as PNG and closed if a path is given).
    """
    groups: dict[str, list[Series]] = {}
    for s in series:
        groups.setdefault(display_unit(s.unit)[0], []).append(unwrapped(s))
    fig, axes = _figure(window_size, rows=len(groups), sharex=True)
    for ax, (shown, members) in zip(axes, groups.items()):
        for s in members:
            ax.plot(time, s.values * display_unit(s.unit)[1], label=s.name, linewidth=1.2)
        ax.set_ylabel(f"{axis_quantity(s.name for s in members)} [{shown or '-'}]", fontsize=9)
        ax.grid(True, alpha=0.3)
        _legend_outside(ax, len(members))
    axes[-1].set_xlabel("time [s]")
    if title:
        fig.suptitle(title, fontsize=10)
    _fit_ylabels(fig, axes)
    return save_figure(fig, path) if path else fig


def plot_stress(history, summary: dict, path: str | None = None, window_size=(1000, 700),
                cycle_signal: str = "von_mises"):
    """Stress history (von Mises, principal, components; MPa) over the rainflow range histogram."""
    fig, (ax, ax2) = _figure(window_size, rows=2)
    mpa = 1e-6
    ax.plot(history.time, history.von_mises * mpa, color="black", linewidth=1.8, label="von Mises")
    for k, style in enumerate(("-", "--", ":")):
        ax.plot(history.time, history.principal[:, k] * mpa, style, color="tab:red", linewidth=1.0,
                label=f"s{k + 1}")
    for k, name in enumerate(COMPONENTS):
        ax.plot(history.time, history.components[:, k] * mpa, linewidth=0.7, alpha=0.6, label=name)
    peak = int(np.argmax(history.von_mises))
    ax.set_title(f"{history.label}: max von Mises {history.von_mises[peak] * mpa:.3g} MPa at "
                 f"t = {history.time[peak]:.4g} s", fontsize=10)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("stress [MPa], components in body axes", fontsize=9)
    ax.grid(True, alpha=0.3)
    _legend_outside(ax, 10)
    edges, counts = summary["bin_edges"] * mpa, summary["bin_counts"]
    ax2.bar(0.5 * (edges[:-1] + edges[1:]), counts, width=0.9 * np.diff(edges), color="tab:blue")
    ax2.set_xlabel(f"{cycle_signal} range [MPa]")
    ax2.set_ylabel("cycles")
    ax2.set_title(f"rainflow ({cycle_signal}): {summary['total_cycles']:g} cycles, largest range "
                  f"{summary['max_range'] * mpa:.3g} MPa", fontsize=10)
    ax2.grid(True, alpha=0.3)
    return save_figure(fig, path) if path else fig


def write_stress_csv(history, path: str) -> str:
    """CSV of the stress history in SI: time [s], six components, von Mises, s1, s2, s3 [Pa]."""
    columns = [("time [s]", history.time)]
    columns += [(f"{c} [Pa]", history.components[:, k]) for k, c in enumerate(COMPONENTS)]
    columns += [("von_mises [Pa]", history.von_mises)]
    columns += [(f"s{k + 1} [Pa]", history.principal[:, k]) for k in range(3)]
    return _write_columns(path, columns)
