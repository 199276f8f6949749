"""``flexmbs modes | animate | plot | stress``: look at mode shapes, motion, signals and stress histories.

Pictures are rendered off screen (no display needed); files keep SI units, plots show bar, kN, mm, MPa.
"""
from __future__ import annotations

import os

import click
import numpy as np

from fem.errors import FlexmbsError

from flexmbs.results.file_kinds import check_replace
from flexmbs.results.safe_files import atomic_output, check_writable, resolve_results

from .app import emit_or_log, emitted, json_option, log
from .checks import FINITE, POSITIVE, check_video

__all__ = ["modes_command", "animate_command", "plot_command", "stress_command", "report_command"]

_SIZE_HELP = "Image size WIDTHxHEIGHT in pixels."
_VIEW = click.Choice(["iso", "xy", "xz", "yz"])


_KIND_OF = {".png": "png picture", ".gif": "gif animation", ".mp4": "mp4 video", ".vtu": "ParaView file",
            ".pvd": "ParaView file", ".csv": "csv table", ".html": "report"}
_FORCE = click.option("--force", is_flag=True, help="Let --out replace a file of another kind or an input.")


def _output(path: str, allowed: tuple[str, ...], inputs=(), force: bool = False, option: str = "--out") -> str:
    """The lower-case suffix of ``path`` if it is one of ``allowed``, its folder exists, and it is neither an
    input nor a file of another kind (issue 30; ``force`` overrides)."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in allowed:
        raise FlexmbsError(f"cannot write {path!r}: the output must end in {', '.join(allowed)}")
    check_writable(path, option)
    check_replace(path, _KIND_OF[suffix], force=force, inputs=inputs, option=option)
    return suffix  # the commands write through atomic_output(..., force=True): kind and inputs are checked here


def _require_motion(results, path: str) -> None:
    """A one-line error for a results file without motion to show (a run that failed at its first sample)."""
    if results.time.size < 2:
        raise FlexmbsError(f"{path!r} holds {results.time.size} sample(s) of a {results.status} run "
                           f"({results.message or 'no message'}): nothing to plot")


@click.command("modes")
@click.argument("body_file", metavar="BODY.flex.h5", type=click.Path(dir_okay=False))
@click.option("--mode", "modes", type=int, multiple=True, metavar="K",
              help="Mode number, 1 = first elastic mode (repeatable; PNG default: the first six).")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help=".png (one mode or a grid), .gif/.mp4 (one mode oscillating), .vtu (every mode as a point field).")
@click.option("--scale", type=FINITE, default=None,
              help="Factor on the mass-normalized shape (default: largest displacement = 10 % of the body size).")
@click.option("--size", "size", default=None, help=_SIZE_HELP + " [default: 1024x768, GIF 640x480]")
@click.option("--view", type=_VIEW, default="iso", show_default=True, help="Camera direction.")
@json_option
@_FORCE
def modes_command(body_file, modes, out, scale, size, view, as_json, force=False):
    """Draw mode shapes of a flexible body: deformed surface coloured by displacement over the undeformed outline,
    reduced and full free–free FE frequencies in the titles."""
    from flexmbs.post.viz.modes import (check_mode_scale, load_body, mode_indices, save_modes_png, write_mode_gif,
                                       write_modes_vtu)
    from flexmbs.post.viz.render import parse_size

    suffix = _output(out, (".png", ".gif", ".mp4", ".vtu"), [body_file], force)
    check_video(out)
    if size:
        parse_size(size)
    body = load_body(body_file)
    numbers = list(modes) or (list(range(1, min(6, body.n_modes) + 1)) if suffix == ".png" else [1])
    mode_indices(body, numbers)  # clear error for a mode that does not exist
    check_mode_scale(body, [k - 1 for k in numbers], scale)  # --scale 1e12: one line before rendering
    if suffix == ".vtu":
        if modes:
            log("note: the .vtu holds every mode; --mode is ignored")
        with atomic_output(out, "--out", force=True) as tmp:
            write_modes_vtu(body, tmp)
        numbers = list(range(1, body.n_modes + 1))
    elif suffix == ".png":
        log(f"rendering {len(numbers)} mode(s) of {body.name!r}")
        with atomic_output(out, "--out", force=True) as tmp:
            save_modes_png(body, tmp, numbers, scale=scale, window_size=parse_size(size or "1024x768"), view=view)
    else:
        if len(numbers) != 1:
            raise FlexmbsError(f"a {suffix} shows one mode oscillating; give one --mode (got {len(numbers)})")
        log(f"rendering mode {numbers[0]} of {body.name!r} oscillating")
        with atomic_output(out, "--out", force=True) as tmp:
            write_mode_gif(body, tmp, numbers[0], scale=scale, window_size=parse_size(size or "640x480"),
                           view=view, progress=log)
    full = list(body.report.get("full_free_free_hz", []))
    payload = {"out": out, "body": body.name, "modes": numbers,
               "frequencies_hz": [float(body.frequencies_hz[k - 1]) for k in numbers],
               "full_free_free_hz": [float(full[k - 1]) if k - 1 < len(full) else None for k in numbers]}
    emit_or_log(payload, as_json, f"wrote {out}")


@click.command("animate")
@click.argument("results_file", metavar="RESULTS.results.h5", type=click.Path(dir_okay=False))
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help=".gif or .mp4 (rendered), .pvd (ParaView time series, one .vtu per output time).")
@click.option("--scale", type=FINITE, default=1.0, show_default=True, help="Factor on the elastic deformation.")
@click.option("--fps", type=POSITIVE, default=20.0, show_default=True, help="Frames per second (GIF/MP4).")
@click.option("--max-frames", type=click.IntRange(2, None), default=200, show_default=True,
              help="At most this many frames, spread evenly over the output times (GIF/MP4).")
@click.option("--every", type=click.IntRange(1, None), default=1, show_default=True,
              help="Write every N-th output time (PVD).")
@click.option("--size", "size", default="800x600", show_default=True, help=_SIZE_HELP)
@click.option("--view", type=_VIEW, default="iso", show_default=True, help="Camera direction.")
@json_option
@_FORCE
def animate_command(results_file, out, scale, fps, max_frames, every, size, view, as_json, force=False):
    """Animate a simulated machine: flexible bodies deformed and coloured by von Mises stress, rigid bodies from
    their markers."""
    from flexmbs.post.viz.animate import animate, check_fps, write_pvd
    from flexmbs.post.viz.render import parse_size
    from flexmbs.post.viz.scene import load_scene

    suffix = _output(out, (".gif", ".mp4", ".pvd"), [results_file], force)
    check_video(out)
    scene = load_scene(resolve_results(results_file, log))
    check_fps(fps)
    if suffix == ".pvd":
        info = write_pvd(scene, out, scale=scale, every=every, progress=log)
        payload = {"out": out, "files": len(info["files"]), "points_per_file": info["points"],
                   "bodies": info["bodies"]}
    else:
        log(f"rendering {min(scene.time.size, max_frames)} frames of {scene.time.size} output times")
        with atomic_output(out, "--out", force=True) as tmp:
            info = animate(scene, tmp, scale=scale, fps=fps, max_frames=max_frames, window_size=parse_size(size),
                           view=view, progress=log)
        payload = {"out": out, "frames": info["frames"], "von_mises_max_pa": info["stress_max"]}
    emit_or_log(payload, as_json, f"wrote {out}")


@click.command("plot")
@click.argument("results_file", metavar="RESULTS.results.h5", type=click.Path(dir_okay=False))
@click.argument("signals", nargs=-1, metavar="SIGNAL...")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help=".png (plot in bar, kN, mm, ...) or .csv (SI units).")
@click.option("--size", "size", default="1000x600", show_default=True, help=_SIZE_HELP)
@click.option("--title", default=None, help="Figure title (default: the results file and case).")
@_FORCE
def plot_command(results_file, signals, out, size, title, force=False):
    """Plot or export signals by name (flexmbs info RESULTS lists them with units); a component is addressed as
    NAME/COMPONENT, e.g. body/crank/position/y."""
    from flexmbs.results.results import load_results
    from flexmbs.post.viz.plots import plot_signals, select_signals, write_signals_csv
    from flexmbs.post.viz.render import parse_size

    suffix = _output(out, (".png", ".csv"), [results_file], force)
    results_file = resolve_results(results_file, log)
    results = load_results(results_file)
    _require_motion(results, results_file)
    series = select_signals(results, signals)
    with atomic_output(out, "--out", force=True) as tmp:
        if suffix == ".csv":
            write_signals_csv(results.time, series, tmp)
        else:
            case = results.attributes.get("case", "")
            plot_signals(results.time, series, tmp, window_size=parse_size(size),
                         title=title if title is not None else f"{os.path.basename(results_file)} {case}".strip())
    log(f"wrote {out} ({len(series)} column(s), {results.time.size} samples)")


@click.command("stress")
@click.argument("results_file", metavar="RESULTS.results.h5", type=click.Path(dir_okay=False))
@click.option("--body", "body", required=True, help="Name of a flexible body.")
@click.option("--node", type=int, default=None, metavar="ID",
              help="Mesh node id (as the run and --hotspot print it) of a node with modal stress.")
@click.option("--node-index", type=int, default=None, metavar="I",
              help="Output node by its index in the body's node arrays (when the results lack mesh ids).")
@click.option("--hotspot", is_flag=True,
              help="The most stressed node of the whole stress field (surface) over the whole run.")
@click.option("--top", type=click.IntRange(1, None), default=5, show_default=True,
              help="With --hotspot: list this many hot spots.")
@click.option("--by", "rank_by", type=click.Choice(["peak", "range"]), default="peak", show_default=True,
              help="With --hotspot: rank by peak von Mises or by its range (max − min) over the run.")
@click.option("--flex", "flex", default=None, type=click.Path(dir_okay=False),
              help="The body's *.flex.h5 file, for mesh node ids (and modal stress) the results do not store.")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help=".png (history in MPa + rainflow histogram) or .csv (history in Pa).")
@click.option("--cycles-of", "cycles_of", default="von_mises", show_default=True,
              type=click.Choice(["von_mises", "s1", "s2", "s3", "xx", "yy", "zz", "yz", "xz", "xy"]),
              help="Stress signal that is rainflow-counted.")
@click.option("--bins", type=click.IntRange(1, 1000), default=10, show_default=True, help="Range bins.")
@click.option("--cycles", "cycles_csv", default=None, type=click.Path(dir_okay=False),
              help="Also write every rainflow cycle (range, mean, count; Pa) to this CSV.")
@click.option("--size", "size", default="1000x700", show_default=True, help=_SIZE_HELP)
@json_option
@_FORCE
def stress_command(results_file, body, node, node_index, hotspot, top, rank_by, flex, out, cycles_of, bins,
                   cycles_csv, size, as_json, force=False):
    """Stress history at an output node of a flexible body (von Mises, principal, components) from modal stress
    and modal coordinates, with a rainflow cycle summary."""
    from flexmbs.post.viz.plots import plot_stress, write_stress_csv
    from flexmbs.post.viz.render import parse_size
    from flexmbs.post.viz.scene import load_scene
    from flexmbs.post.viz.stress import attach_flexbody, rainflow_summary, stress_history

    suffix = _output(out, (".png", ".csv"), [results_file, flex], force)
    if cycles_csv:
        _output(cycles_csv, (".csv",), [results_file, flex, out], force, "--cycles")
    if sum(x is not None and x is not False for x in (node, node_index, hotspot or None)) != 1:
        raise FlexmbsError("choose the node: exactly one of --node ID, --node-index I or --hotspot")
    scene = load_scene(resolve_results(results_file, log))
    if flex:
        attach_flexbody(scene, body, flex)
    peak, spots = None, []
    if hotspot:
        from flexmbs.post.durability import body_stress, hotspots

        spots = hotspots(body_stress(scene, body), top=top, by=rank_by)
        node_index = spots[0].node_index
        peak = {"time_s": spots[0].time_of_peak, "von_mises_pa": spots[0].peak, "by": rank_by,
                "top": [{"rank": h.rank, "node_id": h.node_id, "position_m": h.position, "von_mises_max_pa": h.peak,
                         "time_of_max_s": h.time_of_peak, "range_pa": h.range} for h in spots]}
    history = stress_history(scene, body, node=node, node_index=node_index)
    summary = rainflow_summary(history.signal(cycles_of), n_bins=bins)
    with atomic_output(out, "--out", force=True) as tmp:
        if suffix == ".csv":
            write_stress_csv(history, tmp)
        else:
            plot_stress(history, summary, tmp, window_size=parse_size(size), cycle_signal=cycles_of)
    if cycles_csv:
        with atomic_output(cycles_csv, "--cycles", force=True) as tmp:
            np.savetxt(tmp, summary["cycles"], delimiter=",", header="range [Pa],mean [Pa],count", comments="")
    k = int(np.argmax(history.von_mises))
    payload = {"out": out, "body": body, "node_id": history.node_id, "node_index": history.node_index,
               "position_m": history.position, "hotspot": peak, "von_mises_max_pa": float(history.von_mises[k]),
               "time_of_max_s": float(history.time[k]), "cycles_of": cycles_of,
               "total_cycles": summary["total_cycles"], "max_range_pa": summary["max_range"],
               "bin_edges_pa": summary["bin_edges"], "bin_counts": summary["bin_counts"],
               "damage_sum_m3": summary["damage_sum_m3"], "damage_sum_m5": summary["damage_sum_m5"]}
    if emitted(payload, as_json):
        return
    if spots:
        click.echo(f"hot spots of {body!r} by {rank_by} von Mises over {scene.time.size} samples:")
        click.echo(f"  {'rank':>4} {'node id':>8} {'x, y, z [mm]':>26} {'max [MPa]':>10} {'at t [s]':>9} "
                   f"{'range [MPa]':>11}")
        for h in spots:
            where = ", ".join(f"{1e3 * c:.1f}" for c in h.position)
            click.echo(f"  {h.rank:>4} {h.node_id:>8} {where:>26} {h.peak / 1e6:>10.4g} {h.time_of_peak:>9.4f} "
                       f"{h.range / 1e6:>11.4g}")
    click.echo(f"{history.label}{' (hot spot)' if hotspot else ''}")
    click.echo(f"  max von Mises {history.von_mises[k] / 1e6:.4g} MPa at t = {history.time[k]:.6g} s")
    click.echo(f"  rainflow of {cycles_of}: {summary['total_cycles']:g} cycles, largest range "
               f"{summary['max_range'] / 1e6:.4g} MPa")
    click.echo(f"  {'range [MPa]':>21}  {'cycles':>8}")
    edges = summary["bin_edges"] / 1e6
    for lo, hi, count in zip(edges[:-1], edges[1:], summary["bin_counts"]):
        click.echo(f"  {lo:>9.4g} – {hi:>9.4g}  {count:>8g}")
    log(f"wrote {out}")


@click.command("report")
@click.argument("source", metavar="RUN.results.h5|STUDY_DIR", type=click.Path())
@click.option("-o", "--out", "out", required=True, type=click.Path(dir_okay=False), help="The page, FILE.html.")
@click.option("--frames", type=click.IntRange(2, 400), default=40, show_default=True,
              help="Frames of the 3D view, spread evenly over the output times.")
@click.option("--scale", type=FINITE, default=1.0, show_default=True, help="Factor on the elastic deformation.")
@json_option
@_FORCE
def report_command(source, out, frames, scale, as_json, force=False):
    """One self-contained HTML page to share (no server, no network): of a run, its summary, the machine in 3D with a
    time slider, every signal as an interactive plot, the modes and the hot spots; of a study folder, its table and
    one plot per output against each varied parameter, with units."""
    from flexmbs.post.report import run_report, study_report
    from flexmbs.studies.study import MANIFEST, load_manifest, load_table

    if os.path.isdir(source):
        if not os.path.isfile(os.path.join(source, MANIFEST)):
            raise FlexmbsError(f"{source!r} is a folder but not a study folder (no {MANIFEST}); give a "
                               "RUN.results.h5 or the folder `flexmbs study` wrote")
        _output(out, (".html",), [], force, "-o")
        info = study_report(load_manifest(source), load_table(source), source, out)
    else:
        _output(out, (".html",), [source], force, "-o")
        source = resolve_results(source, log)
        info = run_report(source, out, max_frames=frames, scale=scale)
    emit_or_log(info, as_json, f"wrote {out} ({info['bytes'] / 1e6:.2f} MB)")
