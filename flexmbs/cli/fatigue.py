"""``flexmbs fatigue``: rainflow + S–N + Goodman + Miner damage over a flexible body's stress field.

Writes ``PREFIX.csv`` (one row per stress-field node, most damaged first), ``PREFIX.vtu`` (the body's surface with
point fields ``damage``, ``life_repeats``, ``life_s``, ``log10_damage``, ``peak_von_mises`` for ParaView) and
``PREFIX.png`` (the surface coloured by log10 damage, the most damaged node marked).
"""
from __future__ import annotations

import os

import click
import numpy as np

from fem.errors import FlexmbsError

from flexmbs.results.safe_files import atomic_output, write_rows

from .app import emitted, json_option, log

__all__ = ["fatigue_command", "fatigue_map", "write_damage_csv", "write_damage_vtu", "save_damage_png"]

_FLOOR = 1e-6  # the picture shows damage down to this fraction of the largest (a display floor only)


def fatigue_map(scene, body: str, sn, quantity: str = "signed_von_mises", mean_correction: str = "goodman",
                max_bytes: float | None = None) -> dict:
    """Damage, life and peak stress at every stress-field node of ``body`` for one pass of the run.

    Returns
    -------
    dict with ``stress`` (:class:`flexmbs.post.durability.BodyStress`), ``damage`` (n,), ``life_repeats`` (n,)
    (= 1/D), ``life_s`` (n,) (= duration/D), ``cycles`` (n,), ``max_amplitude`` (n,) Pa (Goodman-equivalent),
    ``static_failures`` (n,), ``peak_von_mises`` (n,) Pa, ``duration`` s, ``order`` (n,) most damaged first.
    """
    from flexmbs.post.durability import body_stress, peak_statistics
    from flexmbs.post.fatigue import damage_field

    stress = body_stress(scene, body)
    result = damage_field(stress.modal_stress, stress.q, sn, quantity, mean_correction, max_bytes)
    peak = peak_statistics(stress.modal_stress, stress.q, "von_mises", max_bytes or 256e6)["max"]
    duration = float(stress.time[-1] - stress.time[0])
    with np.errstate(divide="ignore"):
        repeats = 1.0 / result.damage
    return {"stress": stress, "damage": result.damage, "life_repeats": repeats, "life_s": repeats * duration,
            "cycles": result.cycles, "max_amplitude": result.max_amplitude,
            "static_failures": result.static_failures, "peak_von_mises": peak, "duration": duration,
            "order": np.argsort(-result.damage, kind="stable")}


def write_damage_csv(fmap: dict, path: str) -> str:
    """One row per node, most damaged first, SI units."""
    s = fmap["stress"]
    with open(path, "w", newline="") as fh:
        write_rows(fh, ["node_id", "x [m]", "y [m]", "z [m]", "damage [1]", "life [repeats]", "life [s]",
                        "cycles [1]", "max_equivalent_amplitude [Pa]", "peak_von_mises [Pa]"],
                   ([int(s.node_ids[k])] + [f"{c:.9g}" for c in s.positions[k]] +
                    [f"{fmap[key][k]:.9g}" for key in ("damage", "life_repeats", "life_s", "cycles", "max_amplitude",
                                                       "peak_von_mises")] for k in fmap["order"]))
    return path


def _surface(scene, body: str, fmap: dict):
    """Points, triangles (compacted to the drawn points) and per-point fields (NaN off the stress field)."""
    shape = scene.body(body)
    triangles = shape.triangles
    if not triangles.size:
        raise FlexmbsError(f"body {body!r} has no surface triangles to draw the damage on")
    from flexmbs.post.viz.animate import _renumber

    used = np.unique(triangles)
    fields = {}
    for key in ("damage", "life_repeats", "life_s", "peak_von_mises"):
        full = np.full(shape.points.shape[0], np.nan)
        full[fmap["stress"].nodes] = fmap[key]
        fields[key] = full[used]
    top = max(float(np.max(fmap["damage"])), 1e-300)
    fields["log10_damage"] = np.log10(np.maximum(fields["damage"], _FLOOR * top))
    return shape.points[used], _renumber(triangles, used, shape.points.shape[0]), fields


def write_damage_vtu(scene, body: str, fmap: dict, path: str) -> str:
    """The body's undeformed surface (body frame, m) with the damage fields as point data."""
    import meshio

    points, triangles, fields = _surface(scene, body, fmap)
    meshio.write(path, meshio.Mesh(points, [("triangle", triangles)], point_data=fields), file_format="vtu")
    return path


def save_damage_png(scene, body: str, fmap: dict, path: str, window_size=(1200, 800), view: str = "iso") -> str:
    """The surface coloured by log10 damage (floor: 1e-6 of the largest), the most damaged node as a ball; colour
    bar, scale bar and axes triad drawn by matplotlib (flexmbs.post.viz.animate.overlay_picture)."""
    import pyvista

    from flexmbs.post.viz.animate import overlay_picture
    from flexmbs.post.viz.modes import _bounds, surface_mesh

    points, triangles, fields = _surface(scene, body, fmap)
    mesh = surface_mesh(points, triangles)
    mesh.point_data["log10 damage"] = fields["log10_damage"]
    k = int(fmap["order"][0])
    s = fmap["stress"]
    size = float(np.linalg.norm(np.ptp(points, axis=0)))
    finite = fields["log10_damage"][np.isfinite(fields["log10_damage"])]
    clim = [float(finite.min()), float(finite.max())] if finite.size else [0.0, 1.0]
    clim[1] = clim[1] if clim[1] > clim[0] else clim[0] + 1.0

    def draw(plotter):
        plotter.add_mesh(mesh, scalars="log10 damage", cmap="turbo", nan_color="lightgray", clim=clim,
                         show_scalar_bar=False)
        plotter.add_mesh(pyvista.Sphere(radius=0.015 * size, center=s.positions[k]), color="magenta")

    caption = (f"{body}: max damage {fmap['damage'][k]:.3g} per pass at node {int(s.node_ids[k])} (magenta ball, "
               f"{', '.join(f'{1e3 * c:.0f}' for c in s.positions[k])} mm in the body frame), "
               f"life {fmap['life_repeats'][k]:.3g} passes")
    image = overlay_picture(draw, _bounds(points), window_size,
                            {"cmap": "turbo", "vmin": clim[0], "vmax": clim[1], "title": "log10 damage per pass"},
                            caption, view)
    from PIL import Image

    Image.fromarray(image).save(path)
    return path


@click.command("fatigue")
@click.argument("results_file", metavar="RESULTS.results.h5", type=click.Path(dir_okay=False))
@click.option("--body", "body", required=True, help="Name of a flexible body (with a stress field).")
@click.option("--sn", "sn_text", default="structural-steel", show_default=True,
              help="S-N curve: structural-steel, cast-iron, or k=SLOPE,sd=AMPLITUDE,nd=CYCLES,rm=STRENGTH "
                   "(e.g. k=5,sd=204MPa,nd=1e6,rm=510MPa).")
@click.option("--signal", "quantity", default="signed_von_mises", show_default=True,
              type=click.Choice(["signed_von_mises", "von_mises", "max_principal", "min_principal", "xx", "yy", "zz",
                                 "yz", "xz", "xy"]), help="Stress that is rainflow-counted.")
@click.option("--mean", "mean_correction", type=click.Choice(["goodman", "none"]), default="goodman",
              show_default=True, help="Mean-stress correction.")
@click.option("--out", "prefix", default=None,
              help="Prefix of PREFIX.csv, PREFIX.vtu, PREFIX.png (default: RESULTS stem + _BODY_fatigue).")
@click.option("--top", type=click.IntRange(1, None), default=5, show_default=True, help="Nodes listed.")
@click.option("--size", "size", default="1200x800", show_default=True, help="Image size WIDTHxHEIGHT in pixels.")
@json_option
@click.option("--force", is_flag=True, help="Let the outputs replace files of another kind.")
def fatigue_command(results_file, body, sn_text, quantity, mean_correction, prefix, top, size, as_json, force=False):
    """Fatigue damage map of a flexible body: rainflow per node, Basquin S-N, Goodman, Miner; a damage table
    (CSV), a VTU with damage and life fields and a picture of the body coloured by damage."""
    from flexmbs.post.fatigue import parse_sn
    from flexmbs.post.viz.render import parse_size
    from flexmbs.post.viz.scene import load_scene

    sn = parse_sn(sn_text)
    if prefix is None:
        stem = os.path.basename(results_file).split(".")[0]
        prefix = os.path.join(os.path.dirname(os.path.abspath(results_file)), f"{stem}_{body}_fatigue")
    folder = os.path.dirname(os.path.abspath(prefix))
    if not os.path.isdir(folder):
        raise FlexmbsError(f"cannot write {prefix}.*: folder {folder!r} does not exist")
    from .viz import _output

    for suffix in (".csv", ".vtu", ".png"):  # writable, of the same kind, no input: before any work (issue 30)
        _output(prefix + suffix, (suffix,), [results_file], force)
    scene = load_scene(results_file)
    fmap = fatigue_map(scene, body, sn, quantity, mean_correction)
    s = fmap["stress"]
    log(f"{body}: {s.nodes.size} nodes × {s.time.size} samples, {sn.describe()}")
    if not s.full_field:
        log("note: the body has no stress field (reduced before it): damage at its output nodes only")
    writers = {"csv": lambda tmp: write_damage_csv(fmap, tmp), "vtu": lambda tmp: write_damage_vtu(scene, body, fmap,
                                                                                                    tmp),
               "png": lambda tmp: save_damage_png(scene, body, fmap, tmp, window_size=parse_size(size))}
    outputs = {key: prefix + "." + key for key in writers}
    for key, writer in writers.items():  # each a temporary, renamed when complete
        with atomic_output(outputs[key], "--out", force=True) as tmp:
            writer(tmp)
    rows = [{"node_id": int(s.node_ids[k]), "position_m": s.positions[k], "damage": float(fmap["damage"][k]),
             "life_repeats": float(fmap["life_repeats"][k]), "life_s": float(fmap["life_s"][k]),
             "cycles": float(fmap["cycles"][k]), "peak_von_mises_pa": float(fmap["peak_von_mises"][k])}
            for k in fmap["order"][:top]]
    failures = float(fmap["static_failures"].sum())
    payload = {"body": body, "sn_curve": sn.describe(), "signal": quantity, "mean_correction": mean_correction,
               "nodes": int(s.nodes.size), "samples": int(s.time.size), "duration_s": fmap["duration"],
               "full_field": s.full_field, "static_failures": failures, "most_damaged": rows, "files": outputs}
    if emitted(payload, as_json):
        return
    click.echo(f"fatigue of {body!r} ({s.nodes.size} nodes, one pass = {fmap['duration']:.4g} s, {quantity}, "
               f"{mean_correction}; {sn.describe()})")
    click.echo(f"  {'node id':>8} {'x, y, z [mm]':>26} {'damage':>10} {'life [passes]':>14} {'cycles':>7} "
               f"{'peak vM [MPa]':>13}")
    for r in rows:
        where = ", ".join(f"{1e3 * c:.1f}" for c in r["position_m"])
        click.echo(f"  {r['node_id']:>8} {where:>26} {r['damage']:>10.3g} {r['life_repeats']:>14.4g} "
                   f"{r['cycles']:>7g} {r['peak_von_mises_pa'] / 1e6:>13.4g}")
    if failures:
        click.echo(f"  warning: {failures:g} cycle(s) with mean stress ≥ R_m (static failure, infinite damage)")
    log("wrote " + ", ".join(outputs.values()))
