"""One self-contained HTML page of a run (``flexmbs report RUN.results.h5 -o run.html``) or of a study
(``flexmbs report STUDY_DIR -o study.html``), to share with colleagues who have only a browser; what the pages show:
docs/visualization.md ("flexmbs report").

Plotly draws everything; its JavaScript is inlined once, so the page needs no server and no network. The only
script of our own collects console errors into a hidden element (``#flexmbs-console-errors``) so that tests in a
headless browser can read them, and honours ``#frame=K`` in the address (open the 3D view at frame K).
"""
from __future__ import annotations

import datetime
import html
import os

import numpy as np

from fem.errors import FlexmbsError

__all__ = ["run_report", "study_report", "machine_figure", "signal_figures", "MAX_SAMPLES"]

MAX_SAMPLES = 2000  # points per signal curve on the page (the results file keeps every sample)

_ERROR_COLLECTOR = """<script>
(function () {
  var errors = [];
  function keep(text) {
    errors.push(String(text));
    var box = document.getElementById('flexmbs-console-errors');
    if (box) { box.textContent = errors.join('\\n'); }
  }
  window.flexmbsConsoleErrors = errors;
  var original = console.error;
  console.error = function () { keep(Array.prototype.join.call(arguments, ' ')); original.apply(console, arguments); };
  window.addEventListener('error', function (e) { keep(e.message || 'error'); });
  window.addEventListener('unhandledrejection', function (e) { keep('unhandled rejection: ' + e.reason); });
})();
</script>"""

_FRAME_FROM_ADDRESS = """<script>
window.addEventListener('load', function () {
  var match = /frame=(\\d+)/.exec(window.location.hash);
  var plot = document.getElementById('machine');
  if (match && plot && plot.layout && plot.layout.sliders) {
    var step = plot.layout.sliders[0].steps[Math.min(+match[1], plot.layout.sliders[0].steps.length - 1)];
    Plotly.animate(plot, step.args[0], step.args[1]);
  }
  document.body.setAttribute('data-flexmbs-ready', '1');
});
</script>"""

_STYLE = """<style>
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #555; font-size: 0.85em; } .warn { color: #8a4b00; }
.scroll { max-height: 28em; overflow: auto; }
#flexmbs-console-errors { display: none; }
</style>"""


def _plotly():
    try:
        import plotly.graph_objects as go
        import plotly.io as pio
        import plotly.offline
    except ImportError:
        raise FlexmbsError("flexmbs report needs plotly (pip install plotly)") from None
    return go, pio, plotly.offline


def _esc(value) -> str:
    return html.escape(str(value))


def _number(value) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return _esc(value)
    return f"{value:.6g}"


def _table(header: list[str], rows: list[list], numeric: set[int] = frozenset()) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td class='num'>{_number(v)}</td>" if k in numeric else f"<td>{_esc(v)}</td>"
                                    for k, v in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figure_html(fig, div_id: str, pio) -> str:
    return pio.to_html(fig, include_plotlyjs=False, full_html=False, div_id=div_id, auto_play=False,
                       config={"displaylogo": False, "responsive": True})


def _page(title: str, sections: list[str]) -> str:
    _, _, offline = _plotly()
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{_esc(title)}</title>{_ERROR_COLLECTOR}{_STYLE}"
            f"<script>{offline.get_plotlyjs()}</script></head><body>"
            "<pre id='flexmbs-console-errors'></pre>" + "\n".join(sections) + _FRAME_FROM_ADDRESS + "</body></html>\n")


def _write(path: str, text: str) -> int:
    from flexmbs.results.safe_files import atomic_output, open_output

    with atomic_output(path, "-o", force=True) as tmp, open_output(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
    return os.path.getsize(path)


# ---------------------------------------------------------------------------------------------------------- 3D view
def _drawn(body) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the body's points the page draws (its surface's nodes; every point of a body without surface)
    and its triangles renumbered to them (interior nodes of a solid mesh would only make the page larger)."""
    if not body.triangles.size:
        return np.arange(body.points.shape[0]), body.triangles
    from flexmbs.post.viz.animate import _renumber

    kept = np.unique(body.triangles)
    return kept, _renumber(body.triangles, kept, body.points.shape[0])


def _mpa(stress: np.ndarray) -> np.ndarray:
    """Stress in MPa for the page (float32; 0 where the stress is unknown)."""
    return np.where(np.isfinite(stress), 1e-6 * stress, 0.0).astype(np.float32)


def _mesh_trace(go, body, triangles: np.ndarray, points: np.ndarray, stress: np.ndarray, stress_max: float,
                show_scale: bool):
    """A Mesh3d of a body with a surface, or a Scatter3d (lines + nodes) of a frame-element body."""
    from flexmbs.post.viz.animate import colour_of

    x, y, z = (points[:, c].astype(np.float32) for c in range(3))
    stressed = np.isfinite(stress).any()
    values = _mpa(stress)
    colour = dict(intensity=values, colorscale="Turbo", cmin=0.0, cmax=max(1e-6 * stress_max, 1e-9),
                  showscale=show_scale, colorbar=dict(title=dict(text="von Mises [MPa]", side="right"), len=0.6)) \
        if stressed else dict(color=colour_of(body))
    if body.triangles.size:
        hover = "%{text}<br>x %{x:.3f} m, y %{y:.3f} m, z %{z:.3f} m" + (
            "<br>von Mises %{intensity:.3g} MPa" if stressed else "") + "<extra></extra>"
        return go.Mesh3d(x=x, y=y, z=z, i=triangles[:, 0].astype(np.int32),
                         j=triangles[:, 1].astype(np.int32), k=triangles[:, 2].astype(np.int32),
                         name=body.name, text=[body.name] * 1, hovertemplate=hover, flatshading=False,
                         lighting=dict(ambient=0.55, diffuse=0.7, specular=0.1), showlegend=True, **colour)
    marker = dict(size=3, color=values if stressed else colour["color"])
    if stressed:
        marker.update(colorscale="Turbo", cmin=0.0, cmax=colour["cmax"])
    return go.Scatter3d(x=x, y=y, z=z, mode="lines+markers", name=body.name, marker=marker,
                        line=dict(width=6, color="#4a6fa5"))


def _frame_update(go, body, points: np.ndarray, stress: np.ndarray):
    xyz = dict(zip("xyz", (points[:, c].astype(np.float32) for c in range(3))))
    stressed = np.isfinite(stress).any()
    if body.triangles.size:
        return go.Mesh3d(**xyz, **({"intensity": _mpa(stress)} if stressed else {}))
    return go.Scatter3d(**xyz, **({"marker": dict(color=_mpa(stress))} if stressed else {}))


def _ground(go, corners: np.ndarray):
    """A light plane under the motion, normal to the vertical axis (:func:`flexmbs.post.viz.animate.ground_corners`)."""
    return go.Mesh3d(x=corners[:, 0], y=corners[:, 1], z=corners[:, 2], i=[0, 0], j=[1, 2], k=[2, 3],
                     color="#d9d2c3", opacity=0.6, name="ground plane (reference)", hoverinfo="skip",
                     showlegend=True)


def machine_figure(scene, max_frames: int = 40, scale: float = 1.0):
    """The machine over the run as a Plotly figure: one trace per body, one animation frame per drawn sample, a
    slider and play button; axis ranges fixed to the whole motion (nothing leaves the frame).

    Parameters
    ----------
    scene : MachineScene
    max_frames : int
        Frames spread evenly over the output times (first and last included).
    scale : float
        Factor on the elastic deformation (stress is never scaled).
    """
    go, _, _ = _plotly()
    from flexmbs.post.viz.animate import (_stress_range, check_scale, frame_arrays, frame_indices, ground_corners,
                                          up_axis)

    frames = frame_indices(scene.time.size, max_frames)
    check_scale(scene, frames, scale)  # issue 43: --scale 1e12 drew nothing but the deformation
    bodies = [b for b in scene.bodies if b.points.size]
    if not bodies:
        raise FlexmbsError(f"{scene.path!r} describes no body with a shape: nothing to draw in 3D")
    stress_max = _stress_range(scene)
    every = {int(k): frame_arrays(scene, int(k), scale) for k in frames}
    points = np.vstack([every[int(k)][b.name]["points"] for k in frames for b in bodies])
    lo, hi = points.min(axis=0), points.max(axis=0)
    up = up_axis(lo, hi)
    pad = 0.08 * float(np.linalg.norm(hi - lo)) or 0.1
    lo, hi = lo - pad, hi + pad
    ground = ground_corners([lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]], up)
    lo, hi = np.minimum(lo, ground.min(axis=0)), np.maximum(hi, ground.max(axis=0))
    drawn = {b.name: _drawn(b) for b in bodies}
    every = {k: {name: {key: value[drawn[name][0]] for key, value in arrays.items() if key != "displacement"}
                 for name, arrays in per_body.items() if name in drawn} for k, per_body in every.items()}
    first = every[int(frames[0])]
    shown_scale = False
    traces = []
    for body in bodies:
        stressed = np.isfinite(first[body.name]["von_mises"]).any()
        traces.append(_mesh_trace(go, body, drawn[body.name][1], first[body.name]["points"],
                                  first[body.name]["von_mises"], stress_max, show_scale=stressed and not shown_scale))
        shown_scale = shown_scale or stressed
    traces.append(_ground(go, ground))
    moving = list(range(len(bodies)))
    figure_frames = [go.Frame(name=str(n), traces=moving,
                              data=[_frame_update(go, b, every[int(k)][b.name]["points"],
                                                  every[int(k)][b.name]["von_mises"]) for b in bodies])
                     for n, k in enumerate(frames)]
    at_once = dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))
    steps = [dict(method="animate", label=f"{scene.time[k]:.3f}", args=[[str(n)], at_once])
             for n, k in enumerate(frames)]
    extent = hi - lo
    ratio = extent / extent.max()
    # a machine in the xy plane (y up) is looked at from the front (+z), a little from above and the side
    eye = (0.45, 0.4, 1.3) if up == 1 else (1.0, 1.0, 0.8)
    camera_up = {c: int(k == up) for k, c in enumerate("xyz")}
    axis = lambda c: dict(range=[float(lo[c]), float(hi[c])], title=f"{'xyz'[c]} [m]", autorange=False,  # noqa: E731
                          nticks=6)
    layout = dict(
        scene=dict(xaxis=axis(0), yaxis=axis(1), zaxis=axis(2), aspectmode="manual",
                   aspectratio=dict(zip("xyz", (float(max(r, 0.05)) for r in ratio))),
                   camera=dict(up=camera_up, eye=dict(zip("xyz", eye)))),
        height=640, margin=dict(l=0, r=0, t=40, b=0), uirevision="machine",
        title=dict(text=f"the machine over the run: {frames.size} of {scene.time.size} output times"
                        f"{f', deformation × {scale:g}' if scale != 1 else ''}", font=dict(size=14)),
        legend=dict(x=0.0, y=1.0, bgcolor="rgba(255,255,255,0.7)"),
        # the steps' own labels would overlap (one per frame): transparent; the current time is written above
        sliders=[dict(active=0, steps=steps, x=0.08, len=0.9, y=0.0, pad=dict(t=10), ticklen=3,
                      font=dict(color="rgba(0,0,0,0)"),
                      currentvalue=dict(prefix="t = ", suffix=" s", visible=True, font=dict(color="#222", size=13)))],
        updatemenus=[dict(type="buttons", showactive=False, x=0.0, y=0.0, xanchor="left", yanchor="top",
                          pad=dict(t=10), buttons=[dict(label="▶", method="animate",
                                                        args=[None, dict(frame=dict(duration=80, redraw=True),
                                                                         fromcurrent=True, mode="immediate",
                                                                         transition=dict(duration=0))])])])
    return go.Figure(data=traces, frames=figure_frames, layout=layout), {"frames": int(frames.size),
                                                                         "stress_max_pa": stress_max}


# ------------------------------------------------------------------------------------------------------- signals
def signal_figures(results, first_visible: int = 6) -> list[tuple[str, object]]:
    """One Plotly figure per display unit (``[(heading, figure)]``) with a menu of the quantities in that unit: the
    chosen quantity's signals are in the legend (the first ``first_visible`` drawn, the others one click away) and
    the y axis says the quantity and unit. Angles unwrapped; values in the plot units of
    :mod:`flexmbs.post.viz.plots`."""
    go, _, _ = _plotly()
    from flexmbs.post.viz.animate import frame_indices
    from flexmbs.post.viz.plots import axis_quantity, display_unit, select_signals, unwrapped

    keep = frame_indices(results.time.size, MAX_SAMPLES)  # the samples drawn: all, or MAX_SAMPLES spread evenly
    groups: dict[str, dict[str, list]] = {}
    for name in results.signals():
        if np.asarray(results[name]).ndim > 2 or name.endswith("/orientation"):
            continue
        for s in select_signals(results, [name]):
            if s.values.ndim != 1 or s.values.size != results.time.size:
                continue
            unit = display_unit(s.unit)[0] or "-"
            groups.setdefault(unit, {}).setdefault(axis_quantity([s.name]), []).append(unwrapped(s))
    out = []
    time = results.time[keep]
    step = np.diff(time)
    uniform = step.size > 0 and np.allclose(step, step[0], rtol=1e-6, atol=0.0) and step[0] > 0
    axis = dict(x0=float(time[0]), dx=float(step[0])) if uniform else dict(x=time.astype(np.float32))
    for unit, quantities in sorted(groups.items(), key=lambda item: (-sum(map(len, item[1].values())), item[0])):
        fig = go.Figure()
        owner = []  # quantity of each trace
        for what, members in sorted(quantities.items()):
            for n, s in enumerate(members):
                factor = display_unit(s.unit)[1]
                fig.add_trace(go.Scatter(**axis, y=(s.values[keep] * factor).astype(np.float32), name=s.name,
                                         mode="lines", hovertemplate=f"{html.escape(s.name)}<br>t = %{{x:.4f}} s<br>"
                                                                     f"%{{y:.4g}} {html.escape(unit)}<extra></extra>"))
                owner.append((what, n))
        names = sorted(quantities)

        def shown(what):
            return [(True if n < first_visible else "legendonly") if q == what else False for q, n in owner]

        for trace, visible in zip(fig.data, shown(names[0])):
            trace.visible = visible
        menu = [dict(label=f"{what} ({len(quantities[what])})", method="update",
                     args=[{"visible": shown(what)}, {"yaxis.title.text": f"{what} [{unit}]"}]) for what in names]
        fig.update_layout(height=400, margin=dict(l=60, r=10, t=50, b=40), template="plotly_white",
                          xaxis_title="time [s]", yaxis_title=f"{names[0]} [{unit}]",
                          legend=dict(font=dict(size=10)), hovermode="closest",
                          updatemenus=[dict(buttons=menu, direction="down", x=0.0, xanchor="left", y=1.14,
                                            yanchor="top", showactive=True)] if len(names) > 1 else [])
        count = sum(map(len, quantities.values()))
        out.append((f"[{unit}]: {', '.join(names[:4])}{' …' if len(names) > 4 else ''} — {count} signal(s)", fig))
    return out


# ------------------------------------------------------------------------------------------------------ run page
def _parameter_rows(case: str, parameters: dict) -> list[list]:
    """``[key, value, unit, provenance, source]`` per parameter; metadata from the case's declaration if found."""
    from flexmbs.post.viz.study import case_specs

    specs = case_specs(case) if case else {}
    return [[key, value, *(specs.get(key, {}).get(field, "") for field in ("unit", "provenance", "source"))]
            for key, value in sorted(parameters.items())]


def _modes_section(path: str) -> str:
    import h5py

    parts = []
    with h5py.File(path, "r", locking=False) as fh:
        for name, g in (fh["model/bodies"].items() if "model/bodies" in fh else []):
            if "frequencies" not in g:
                continue
            freqs = np.asarray(g["frequencies"][()], dtype=float)
            index = np.asarray(g["mode_indices"][()], dtype=int) if "mode_indices" in g else np.arange(freqs.size)
            rows = [[n + 1, int(index[n]) + 1 if n < index.size else n + 1, f] for n, f in enumerate(freqs)]
            parts.append(f"<h3>{_esc(name)}</h3>" + _table(["mode", "mode of the body file", "frequency [Hz]"],
                                                            rows, numeric={0, 1, 2}))
    if not parts:
        return "<p class='note'>No flexible body in this run.</p>"
    return ("<p class='note'>Elastic modes simulated (Craig–Bampton, fixed-interface and constraint modes "
            "orthonormalized, rigid modes removed); <code>flexmbs modes BODY.flex.h5</code> draws them.</p>"
            + "".join(parts))


def _hotspot_section(scene, top: int = 10) -> str:
    from flexmbs.post.durability import body_stress, hotspots

    parts = []
    for body in scene.bodies:
        if not (body.flexible and body.stress_table()[0].size):
            continue
        spots = hotspots(body_stress(scene, body.name), top=top)
        rows = [[h.rank, h.node_id, ", ".join(f"{1e3 * c:.1f}" for c in h.position), h.peak / 1e6,
                 h.time_of_peak, h.range / 1e6] for h in spots]
        parts.append(f"<h3>{_esc(body.name)}</h3>" + _table(
            ["rank", "node id", "x, y, z in the body frame [mm]", "max von Mises [MPa]", "at t [s]",
             "range [MPa]"], rows, numeric={0, 1, 3, 4, 5}))
    if not parts:
        return "<p class='note'>No flexible body with modal stress in this run.</p>"
    return ("<p class='note'>Most stressed nodes of each flexible body's stress field over the whole run "
            "(von Mises from modal stress and the modal coordinates).</p>" + "".join(parts))


def run_report(results_path: str, out: str, max_frames: int = 40, scale: float = 1.0) -> dict:
    """Write the page of one run (see the module docstring). Returns ``out``, ``bytes``, ``frames``, ``plots``."""
    from flexmbs.post.viz.scene import load_scene
    from flexmbs.results.results import load_results

    _, pio, _ = _plotly()
    results = load_results(results_path)
    if results.time.size < 2:
        raise FlexmbsError(f"{results_path!r} holds {results.time.size} sample(s) of a {results.status} run: "
                           "nothing to report")
    attrs = results.attributes
    case = str(attrs.get("case", "") or "")
    parameters = attrs.get("parameters") or {}
    parameters = parameters if isinstance(parameters, dict) else {}
    warnings = attrs.get("warnings") or []
    stats = results.statistics
    title = f"{case or os.path.basename(results_path)} — flexmbs run report"
    sections = [f"<h1>{_esc(title)}</h1>",
                f"<p>{_esc(os.path.basename(results_path))}: {_esc(results.status)}"
                f"{' — ' + _esc(results.message) if results.message else ''}; {results.time.size} output times "
                f"from {results.time[0]:.4g} to {results.time[-1]:.4g} s; flexmbs "
                f"{_esc(attrs.get('software_version', attrs.get('version', '')))}; page written "
                f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC.</p>"]
    if warnings:
        sections.append("<h2>Warnings</h2><ul>" + "".join(f"<li class='warn'>{_esc(w)}</li>" for w in warnings)
                        + "</ul>")
    sections.append("<h2>Parameters</h2><div class='scroll'>" + (
        _table(["parameter", "value", "unit", "provenance", "source"], _parameter_rows(case, parameters),
               numeric={1}) if parameters else "<p class='note'>The results file stores no parameters.</p>")
        + "</div>")
    sections.append("<h2>Solver statistics</h2><div class='scroll'>" + _table(
        ["statistic", "value"], [[k, v] for k, v in sorted(stats.items())], numeric={1}) + "</div>")
    scene = load_scene(results_path)
    figure, info = machine_figure(scene, max_frames=max_frames, scale=scale)
    sections.append("<h2>The machine</h2><p class='note'>Drag the time slider or press ▶; drag to turn, scroll to "
                    "zoom. Flexible bodies are coloured by von Mises stress on one scale for the whole run; the "
                    "ground plane is a visual reference under the motion.</p>" + _figure_html(figure, "machine", pio))
    plots = signal_figures(results)
    sections.append("<h2>Signals</h2><p class='note'>One plot per unit; its menu (top left) chooses the quantity; "
                    "click a legend entry to show or hide a signal, double-click to show it alone; drag to zoom, double-click the plot to reset. "
                    "Angles are unwrapped (no ±180° jumps). Plots show every sample up to "
                    f"{MAX_SAMPLES} per curve.</p>")
    for n, (heading, fig) in enumerate(plots):
        sections.append(f"<h3>{_esc(heading)}</h3>" + _figure_html(fig, f"signals-{n}", pio))
    sections.append("<h2>Modes of the flexible bodies</h2>" + _modes_section(results_path))
    sections.append("<h2>Hot spots</h2>" + _hotspot_section(scene))
    size = _write(out, _page(title, sections))
    return {"out": out, "bytes": size, "frames": info["frames"], "plots": len(plots),
            "stress_max_pa": info["stress_max_pa"]}


# ----------------------------------------------------------------------------------------------------- study page
def study_report(manifest: dict, frame, study_dir: str, out: str) -> dict:
    """Write the page of a study: its table, and one plot per output against each varied parameter (with units).

    Parameters
    ----------
    manifest : dict
        The study's ``study.json`` (:func:`flexmbs.studies.study.load_manifest`).
    frame : pandas.DataFrame
        The study table (:func:`flexmbs.studies.study.load_table`).

    Returns ``out``, ``bytes``, ``plots``, ``rows``."""
    from flexmbs.post.viz.study import BOOKKEEPING, column_label, output_columns

    go, pio, _ = _plotly()
    case, varied = manifest.get("case", ""), list(manifest.get("varied", []))
    title = f"{case}: study {os.path.basename(os.path.abspath(study_dir))} — flexmbs study report"
    finished = frame[frame["status"] == "finished"] if "status" in frame else frame
    outputs = output_columns(finished, varied)
    shown = [c for c in frame.columns if c not in ("results_file", "worker")]
    numeric = {k for k, c in enumerate(shown) if frame[c].dtype.kind in "fiu"}
    header = [column_label(case, c) for c in shown]
    sections = [f"<h1>{_esc(title)}</h1>",
                f"<p>{len(frame)} variants ({len(finished)} finished), design {_esc(manifest.get('design', ''))}, "
                f"varied: {_esc(', '.join(column_label(case, v) for v in varied))}.</p>",
                "<h2>Study table</h2><div class='scroll'>" + _table(header, frame[shown].values.tolist(), numeric)
                + "</div>"]
    plots = 0
    sections.append("<h2>Outputs against the varied parameters</h2>")
    for column in outputs:
        for against in varied:
            rows = finished.sort_values(against)
            others = [v for v in varied if v != against and finished[v].nunique(dropna=False) > 1]
            fig = go.Figure()
            for values, part in rows.groupby(others, sort=True, dropna=False) if others else [((), rows)]:
                values = values if isinstance(values, tuple) else (values,)
                label = ", ".join(f"{k} = {_number(v)}" for k, v in zip(others, values)) or column
                fig.add_trace(go.Scatter(x=part[against], y=part[column], mode="lines+markers", name=label))
            fig.update_layout(height=360, template="plotly_white", margin=dict(l=70, r=10, t=40, b=50),
                              title=dict(text=f"{column} against {against}", font=dict(size=13)),
                              xaxis_title=column_label(case, against), yaxis_title=column_label(case, column),
                              showlegend=bool(others))
            sections.append(_figure_html(fig, f"study-{plots}", pio))
            plots += 1
    if not outputs:
        sections.append("<p class='note'>No numeric output column with a finished variant.</p>")
    left = [c for c in BOOKKEEPING if c in frame.columns]
    sections.append(f"<p class='note'>Bookkeeping columns not plotted: {_esc(', '.join(left))}.</p>")
    size = _write(out, _page(title, sections))
    return {"out": out, "bytes": size, "plots": plots, "rows": int(len(frame))}
