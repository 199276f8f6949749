"""``flexmbs reduce`` and ``flexmbs info``."""
from __future__ import annotations

import json
import os
import time
import warnings

import click
import h5py
import numpy as np

from fem.errors import FileFormatError, FlexmbsError

from flexmbs.results.file_kinds import check_replace
from flexmbs.results.safe_files import atomic_output, open_output, output_lock, resolve_results

from .app import emitted, json_option, log

__all__ = ["reduce_command", "info_command", "parse_interface"]

_SPIDERS = ("rbe2", "rbe3")


def parse_interface(text: str) -> tuple[str, str, str, str, tuple | None]:
    """``NAME=SEL[:rbe2|:rbe3][@x,y,z][:dofs=123456]`` -> (name, selector, spider, dofs, reference point or None).
    Selectors contain colons themselves, so options are taken from the right."""
    name, eq, rest = text.partition("=")
    if not eq or not name or not rest:
        raise FlexmbsError(f"--interface {text!r}: write NAME=SELECTOR[:rbe2|:rbe3][@x,y,z][:dofs=123456]")
    parts = rest.split(":")
    spider, dofs, point = "rbe2", "123456", None
    seen = set()
    while len(parts) > 2:
        tail = parts[-1].strip().lower()
        kind, at, where = tail.partition("@")
        what = "spider" if kind in _SPIDERS else "dofs" if tail.startswith("dofs=") else None
        if what in seen:  # issue 43: ":rbe3:rbe2" took one of them without a word
            raise FlexmbsError(f"--interface {text!r}: the {what} is given twice; give it once")
        seen.add(what)
        if kind in _SPIDERS:
            spider = kind
            point = _point(text, where) if at else None
        elif tail.startswith("dofs="):
            dofs = tail[5:]
            if not dofs:  # issue 43: an empty dofs= kept all six without a word
                raise FlexmbsError(f"--interface {text!r}: dofs= is empty; give the retained dofs, e.g. dofs=123456 "
                                   "(1-3 translations, 4-6 rotations)")
        elif kind.startswith(("rbe", "spider")):  # a spider kind mistyped (:rbe4) is no part of a group name
            raise FlexmbsError(f"--interface {text!r}: unknown spider {parts[-1].strip()!r}; use :rbe2 (rigid, the "
                               "default) or :rbe3 (distributing)")
        else:
            break
        parts.pop()
    return name.strip(), ":".join(parts), spider, dofs, point


def _point(text: str, where: str) -> tuple:
    try:
        point = tuple(float(v) for v in where.split(","))
    except ValueError:
        point = ()
    if len(point) != 3 or not np.all(np.isfinite(point)):
        raise FlexmbsError(f"--interface {text!r}: the reference point after @ must be three numbers x,y,z in m")
    return point


def parse_path(text: str) -> tuple[str, str, str]:
    """``NAME=SEL[:dofs=3]`` -> (name, selector, retained translational dofs, "" for interior nodes)."""
    name, eq, rest = text.partition("=")
    if not eq or not name.strip() or not rest:
        raise FlexmbsError(f"--path {text!r}: write NAME=SELECTOR[:dofs=3]")
    selector, dofs = rest, ""
    head, _, tail = rest.rpartition(":")
    if head and tail.strip().lower().startswith("dofs="):
        selector, dofs = head, tail.strip()[5:]
    return name.strip(), selector, dofs


def _parse_damping(text: str | None):
    if text is None:
        return 0.0
    try:
        return float(text)
    except ValueError:
        pass
    try:  # bands: "100:0.01,1000:0.05"
        return [tuple(float(v) for v in band.split(":")) for band in text.split(",")]
    except ValueError:
        raise FlexmbsError(f"--damping {text!r}: give a ratio (0.01 for 1 %) or bands F_HZ:RATIO,...") from None


def _table_rows(report: dict) -> list[tuple]:
    """One row per full free–free mode with its reduced partner paired by shape (reduction.modes_report), or,
    for files written before the pairing existed, by rank; reduced modes without a partner follow."""
    reduced = np.asarray(report["reduced_hz"])
    full = np.asarray(report.get("full_free_free_hz", []))
    if "pair_reduced" not in report:  # older file: rank pairing
        mac = np.asarray(report.get("mac", []))
        return [(k + 1, full[k], f, 100.0 * (f / full[k] - 1.0), mac[k], "", k + 1) if k < full.size else
                (k + 1, None, f, None, None, "", k + 1) for k, f in enumerate(reduced)]
    partner = np.asarray(report["pair_reduced"], dtype=int)
    mac = np.asarray(report["pair_mac"])
    characters = str(report.get("characters", "")).split(",")
    rows = [(k + 1, full[k], reduced[j], 100.0 * (reduced[j] / full[k] - 1.0), mac[k], characters[k], j + 1)
            for k, j in enumerate(partner) if j >= 0]
    return rows + [(None, None, reduced[j], None, None, "", j + 1)
                   for j in sorted(set(range(reduced.size)) - set(partner.tolist()))]


def _warning_lines(report: dict) -> list[str]:
    return [line for line in str(report.get("warnings", "")).split("\n") if line]


def _solver_line(r: dict) -> str:
    route = r.get("solver_route", "direct")
    if route == "direct":
        nnz = r.get("solver_factor_nonzeros")
        return f"direct ({r.get('solver_backend', '')}" + (f", factor {nnz / 1e6:.0f} M nonzeros)" if nnz else ")")
    levels = ", ".join(str(int(v)) for v in np.atleast_1d(r.get("solver_amg_levels", [])))
    return (f"iterative (PyAMG smoothed aggregation, levels {levels} dofs; CG {r.get('solver_cg_iterations', '?')} "
            f"iterations; LOBPCG {r.get('solver_lobpcg_iterations', '?')} iterations, residual "
            f"{float(r.get('solver_lobpcg_residual', float('nan'))):.1g})")


def _markdown_report(body, path: str, mesh: str, settings: dict) -> None:
    r = body.report
    lines = [f"# Reduction report: {body.name}", "", f"- mesh: `{mesh}`",
             f"- physical dofs: {r['physical_dofs']}", "- interfaces: " + ", ".join(
                 f"{i.name} ({i.spider}, dofs {i.retained_dofs}, {len(i.connected_node_ids)} nodes)"
                 for i in body.interfaces),
             f"- fixed-interface normal modes: {r['n_normal_modes']}, boundary dofs: {r['n_boundary_dofs']}",
             f"- rigid-body modes removed: {r['rigid_modes_removed']}, elastic coordinates: {body.n_modes}",
             f"- mass {body.invariants.mass:.6g} kg; settings: {settings}", f"- time: {r['seconds']:.1f} s",
             f"- interior solver: {_solver_line(r)}",
             f"- full free–free modes: {r.get('comparison_method', 'not computed')}", "",
             "Full free–free modes paired with reduced modes by shape (MAC, degenerate groups as subspaces; "
             "docs/theory-fem.md). The full FE model is the mesh *with* the interface spiders (RBE2 spiders stiffen "
             "their nodes; RBE3 spiders add no stiffness), i.e. the same model the reduction starts from:", "",
             "| full mode | character | full FE free–free [Hz] | reduced mode | reduced [Hz] | difference [%] | MAC |",
             "|---|---|---|---|---|---|---|"]
    for k, full, red, diff, mac, character, j in _table_rows(r):
        if full is None:
            lines.append(f"| / | | / | {j} | {red:.1f} | not paired (no full mode compared or left) | |")
        else:
            lines.append(f"| {k} | {character} | {full:.1f} | {j} | {red:.1f} | {diff:+.2f} | {mac:.4f} |")
    lines += ["", "Fixed-interface frequencies [Hz]: " + ", ".join(f"{f:.1f}" for f in r["fixed_interface_hz"])]
    if "cutoff_hz" in r:
        lines.append(f"Cut-off criterion: fixed-interface modes up to {r['cutoff_factor']:g} × {r['max_frequency_hz']:g}"
                     f" Hz = {r['cutoff_hz']:g} Hz retained.")
    lines += [""] + [f"**Warning:** {line}" for line in _warning_lines(r)]
    with open_output(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")


@click.command("reduce")
@click.argument("mesh", type=click.Path(dir_okay=False), required=False)
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False), help="BODY.flex.h5 to write.")
@click.option("--interface", "interfaces", multiple=True, required=True,
              metavar="NAME=SEL[:rbe2|:rbe3][@x,y,z][:dofs=..]",
              help="An interface: a reference node tied to the selected nodes, at x,y,z m when given (default: the "
                   "area-weighted centroid of the nodes) (repeatable).")
@click.option("--modes", type=int, default=13, show_default=True, help="Fixed-interface normal modes.")
@click.option("--max-frequency", "max_frequency", type=float, default=None, metavar="F",
              help="Cut-off criterion: retain the fixed-interface modes up to 2·F, F the highest frequency of "
                   "interest in Hz (replaces --modes).")
@click.option("--output-nodes", "output_nodes", multiple=True, metavar="SEL",
              help="Interior nodes kept for stress output and contacts (repeatable).")
@click.option("--stress-field", "stress_field", multiple=True, metavar="surface|all|none|SEL",
              help="Nodes with modal stress for durability: surface (default), all, none, or node sets (repeatable).")
@click.option("--path", "paths", multiple=True, metavar="NAME=SEL[:dofs=3]",
              help="A sliding path of nodes for SlidingContact; dofs=3 keeps its z translations as interface dofs "
                   "(repeatable).")
@click.option("--material", default=None, help="steel, cast-iron, aluminium or E=..,nu=..,rho=.. (SI); default: "
              "the mesh file's materials (Abaqus *Material/*Solid Section, Nastran MAT1, ANSYS MPDATA).")
@click.option("--damping", default=None, help="Modal damping ratio (0.01 = 1 %) or bands F_HZ:RATIO,...")
@click.option("--compare", type=int, default=None, help="Full free–free modes for the report (0 skips).")
@click.option("--compare-method", "compare_method", type=click.Choice(["reuse", "full"]), default="reuse",
              show_default=True, help="reuse: the report's free–free modes with the reduction's own solver (no second "
              "factorization); full: a separate modal analysis with its own factorization.")
@click.option("--solver", type=click.Choice(["auto", "direct", "iterative"]), default="auto", show_default=True,
              help="Interior solves: PARDISO factorization, AMG-preconditioned CG/LOBPCG, or chosen from the factor's "
                   "estimated size and the free memory.")
@click.option("--name", default=None, help="Body name (default: the output file's stem).")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), default=None, help="Write a Markdown report.")
@click.option("--stiffness", default=None, type=click.Path(dir_okay=False), metavar="K.mtx|OUT.pch:KAAX",
              help="Instead of MESH: the stiffness matrix of your solver (Abaqus *MATRIX OUTPUT .mtx, FORMAT=MATRIX "
                   "INPUT or COORDINATE; ANSYS MatrixMarket *EXPORT files; Nastran DMIG as FILE.pch:NAME or OP4 as "
                   "FILE.op4:NAME; ANSYS FILE.full).")
@click.option("--mass", "mass_file", default=None, type=click.Path(dir_okay=False), metavar="M.mtx|OUT.pch:MAAX",
              help="With --stiffness: the mass matrix.")
@click.option("--nodes", default=None, type=click.Path(dir_okay=False), metavar="JOB.inp|NODES.txt",
              help="With --stiffness: node positions (the job's .inp, an ANSYS .cdb, a Nastran .bdf or id,x,y,z "
                   "lines).")
@click.option("--dof-map", "dof_map", default=None, type=click.Path(dir_okay=False), metavar="MAPPING.txt",
              help="With ANSYS MatrixMarket matrices: the DOF mapping file *SMAT/*EXPORT wrote beside them (node of "
                   "each 3-dof block); without it coordinate-form matrices follow the node file's order.")
@json_option
@click.option("--force", is_flag=True, help="Let -o/--report replace a file of another kind or an input.")
@click.option("--geometric-stiffness", "geometric_stiffness", is_flag=True,
              help="Store modal geometric stiffness: stress stiffening under spin and preload (issue 28).")
def reduce_command(mesh, out, interfaces, modes, max_frequency, output_nodes, stress_field, paths, material, damping,
                   compare, name, report_path, stiffness, mass_file, nodes, as_json, force=False,
                   geometric_stiffness=False, dof_map=None, compare_method="reuse", solver="auto"):
    """Craig–Bampton reduction of a mesh, or of your solver's K and M, into a flexible-body file (seed 003
    §2.1.2)."""
    from .checks import check_damping, check_outputs

    start = time.perf_counter()
    if modes < 1:
        raise FlexmbsError(f"--modes must be at least 1 fixed-interface normal mode (13 is typical), got {modes}")
    if max_frequency is not None and not (max_frequency > 0.0 and np.isfinite(max_frequency)):
        raise FlexmbsError(f"--max-frequency must be a positive frequency in Hz, got {max_frequency}")
    if compare is not None and compare < 0:
        raise FlexmbsError(f"--compare must be 0 (skip) or a number of free-free modes, got {compare}")
    if name is not None and not name.strip():  # issue 43: an empty body name was written
        raise FlexmbsError("--name is empty: give the body a name (or leave --name out: the output file's stem)")
    matrices = (stiffness, mass_file, nodes) if any((stiffness, mass_file, nodes)) else None
    if (mesh is None) == (matrices is None) or (matrices is not None and None in matrices):
        raise FlexmbsError("give a MESH, or --stiffness K --mass M --nodes NODEFILE (all three, without MESH)")
    if dof_map is not None:
        if matrices is None:
            raise FlexmbsError("--dof-map goes with --stiffness, --mass and --nodes (ANSYS MatrixMarket matrices)")
        matrices = (*matrices, dof_map)
    check_outputs((out, "-o"), (report_path, "--report"))
    if not out.endswith(".h5"):
        raise FlexmbsError(f"-o {out!r}: a flexible-body file ends in .flex.h5")
    parsed = [parse_interface(text) for text in interfaces]
    parsed_paths = {n: (sel, d) for n, sel, d in (parse_path(text) for text in paths)}
    ratios = _parse_damping(damping)
    check_damping(ratios)
    from fem.materials import check_solid, parse_material

    if material is not None:
        check_solid(parse_material(material))
    inputs = [p.rsplit(":", 1)[0] if p and not os.path.exists(p) else p
              for p in (mesh, stiffness, mass_file, nodes, dof_map)]
    check_replace(out, "flexible body", force=force, inputs=inputs, option="-o")  # nothing-lost (issue 30)
    if report_path:
        check_replace(report_path, "report", force=force, inputs=inputs + [out], option="--report")
    with output_lock(out):
        _reduce(mesh or matrices, out, interfaces, parsed, parsed_paths, paths, stress_field, modes, output_nodes,
                material, damping, ratios, compare, name, report_path, as_json, start, max_frequency,
                geometric_stiffness=geometric_stiffness, compare_method=compare_method, solver=solver)


def _reduce(mesh, out, interfaces, parsed, parsed_paths, paths, stress_field, modes, output_nodes, material, damping,
            ratios, compare, name, report_path, as_json, start, max_frequency=None,
            geometric_stiffness=False, compare_method="reuse", solver="auto") -> None:
    from fem.materials import choose_material
    from fem.mesh import load_mesh
    from fem.model import solid_model
    from reduction.io import file_sha256, write_flexbody
    from reduction.reduce import ReductionAccuracyWarning, reduce

    if isinstance(mesh, tuple):  # --stiffness, --mass, --nodes: the user's solver matrices (fem.matrices)
        from fem.matrices import load_matrix_model

        model, fe_mesh = load_matrix_model(*mesh), None
        if material:
            log("note: --material is ignored: the matrices carry the material")
        material = "from the matrices"
        stress_note = model.stress_note if model.solid is not None else f"note: no stress field: {model.stress_note}"
    else:
        fe_mesh = load_mesh(mesh)
        model = solid_model(fe_mesh, choose_material(fe_mesh.materials, mesh, material, log))
    if material is None:  # provenance: the file's materials as read
        material = "from the mesh file: " + ", ".join(f"{k}: E={m.youngs_modulus:g},nu={m.poisson_ratio:g},"
                                                      f"rho={m.density:g}" for k, m in fe_mesh.materials.items())
    from .checks import mesh_warnings  # nothing-lost (issue 30): said with the progress lines below

    # progress lines wait until every selection is resolved: a bad selector is one error line alone
    said = [f"warning: {text}" for text in mesh_warnings(fe_mesh)] if fe_mesh is not None else [stress_note]
    for itf_name, selector, spider, _, point in parsed:
        ref = model.add_reference_node(itf_name, selector, spider, point=point)
        said.append(f"interface {itf_name}: {spider} spider on {ref.connected.size} nodes at "
                    f"({', '.join(f'{c:.4g}' for c in model.positions[ref.node])}) m")
    outputs = np.unique(np.concatenate([model.select(s) for s in output_nodes])) if output_nodes else None
    log(f"mesh: {fe_mesh.n_nodes} nodes, {fe_mesh.n_elements} {fe_mesh.cell_type}; assembled" if fe_mesh else
        f"matrices: {model.n_nodes} nodes, {model.n_dofs} dofs")
    for line in said:
        log(line)
    body_name = name or os.path.basename(out).split(".")[0]
    with warnings.catch_warnings():  # the accuracy warnings are printed below with the table
        warnings.simplefilter("ignore", ReductionAccuracyWarning)
        body = reduce(model, {n: d for n, _, _, d, _ in parsed}, modes, output_nodes=outputs, damping=ratios,
                      name=body_name, compare_modes=compare, progress=log, paths=parsed_paths,
                      stress_field=stress_field[0] if len(stress_field) == 1 else (list(stress_field) or "surface"),
                      max_frequency=max_frequency, geometric_stiffness=geometric_stiffness, solver=solver,
                      compare_method=compare_method, release=True)
    for path in body.paths.values():
        log(f"path {path.name}: {path.nodes.size} nodes, " + (f"dofs {path.retained_dofs} kept as interface dofs"
                                                               if path.retained_dofs else "interior nodes"))
    settings = {"modes": modes, "interfaces": list(interfaces), "material": material, "damping": damping,
                "stress_field": list(stress_field) or ["surface"], "paths": list(paths),
                "max_frequency": max_frequency, "geometric_stiffness": geometric_stiffness, "solver": solver,
                "compare_method": compare_method}
    files = dict(zip(("stiffness", "mass", "nodes", "dof_map"), mesh)) if isinstance(mesh, tuple) else {"mesh": mesh}
    files = {k: p if os.path.exists(p) else p.rsplit(":", 1)[0] for k, p in files.items()}  # FILE.pch:KAAX
    source = {k: v for key, path in files.items() for k, v in ((key, os.path.abspath(path)),
                                                               (f"{key}_sha256", file_sha256(path)))}
    with atomic_output(out, "-o", force=True) as tmp:  # kind and inputs checked before the work
        write_flexbody(body, tmp, {**source, "material": material, "settings": settings})
    if report_path:
        with atomic_output(report_path, "--report", force=True) as tmp:
            _markdown_report(body, tmp, " + ".join(files.values()), settings)
    _print_reduction(body, model, out, start, as_json)


def _print_reduction(body, model, out, start, as_json) -> None:
    r = body.report
    props = model.rigid_body_properties()
    payload = {
        "file": out, "name": body.name, "physical_dofs": r["physical_dofs"],
        "interfaces": [{"name": i.name, "spider": i.spider, "nodes": int(len(i.connected_node_ids)),
                        "dofs": i.retained_dofs} for i in body.interfaces],
        "fixed_interface_hz": r["fixed_interface_hz"], "rigid_modes_removed": r["rigid_modes_removed"],
        "elastic_modes": body.n_modes, "reduced_hz": body.frequencies_hz,
        "full_free_free_hz": r.get("full_free_free_hz", []), "mac": r.get("mac", []),
        "mass": body.invariants.mass, "center_of_mass": props["center_of_mass"], "inertia": props["inertia"],
        "output_nodes": int(body.output_nodes.size), "seconds": time.perf_counter() - start,
        "paths": {p.name: {"nodes": int(p.nodes.size), "dofs": p.retained_dofs} for p in body.paths.values()},
        "pairs": [{"full_mode": k, "character": c, "full_hz": f, "reduced_mode": j, "reduced_hz": red,
                   "error_percent": d, "mac": m} for k, f, red, d, m, c, j in _table_rows(r) if f is not None],
        "warnings": _warning_lines(r),
    }
    for line in payload["warnings"]:
        click.echo(f"warning: {line}", err=True)
    if emitted(payload, as_json):
        return
    click.echo(f"{out}: {body.n_modes} elastic coordinates from {r['physical_dofs']} dofs "
               f"({r['rigid_modes_removed']} rigid-body modes removed), mass {body.invariants.mass:.6g} kg")
    click.echo(f"{'full':>5} {'character':>9} {'full FE [Hz]':>13} {'reduced':>8} {'[Hz]':>10} {'diff [%]':>9} "
               f"{'MAC':>7}")
    for k, full, red, diff, mac, character, j in _table_rows(r):
        if full is None:
            click.echo(f"{'/':>5} {'':>9} {'/':>13} {j:>8} {red:>10.2f} {'':>9} {'':>7}")
        else:
            click.echo(f"{k:>5} {character:>9} {full:>13.2f} {j:>8} {red:>10.2f} {diff:>+9.3f} {mac:>7.4f}")
    if payload["pairs"]:
        click.echo("(full FE: the mesh with the interface spiders, as reduced)")
    click.echo(f"({payload['seconds']:.1f} s)")


@click.command("info")
@click.argument("path", type=click.Path(dir_okay=False), required=False)
@json_option
@click.option("--cache", "show_cache", is_flag=True,
              help="Describe the cache of reduced bodies ($FLEXMBS_CACHE, default ~/.cache/flexmbs) instead.")
def info_command(path, as_json, show_cache=False):
    """Describe a flexible-body (*.flex.h5) or results (*.results.h5) file: contents, units, signals."""
    from reduction.io import FORMAT, read_flexbody

    if show_cache or path is None:  # nothing-lost (issue 30): the cache made visible
        from .checks import echo_cache

        return echo_cache(as_json, path is None and not show_cache)

    if not os.path.exists(path) and not path.endswith(".flex.h5"):
        path = resolve_results(path, log)
    if not os.path.exists(path):
        raise FileFormatError(f"{path!r} does not exist")
    try:
        with h5py.File(path, "r", locking=False) as f:
            kind = f.attrs.get("format")
    except OSError as exc:
        from flexmbs.results.results import _reason  # issue 30: a cut file said so, not "not written by flexmbs"

        raise FileFormatError(f"{path!r} cannot be read: {_reason(exc)}") from None
    if kind == FORMAT:
        body = read_flexbody(path)
        r = body.report
        payload = {"file": path, "kind": "flexbody", "name": body.name, "elastic_modes": body.n_modes,
                   "physical_dofs": r.get("physical_dofs"), "rigid_modes_removed": r.get("rigid_modes_removed"),
                   "reduced_hz": body.frequencies_hz, "full_free_free_hz": r.get("full_free_free_hz", []),
                   "fixed_interface_hz": r.get("fixed_interface_hz", []), "mac": r.get("mac", []),
                   "damping_ratios": body.damping_ratios, "mass": body.invariants.mass,
                   "interfaces": [{"name": i.name, "spider": i.spider, "dofs": i.retained_dofs,
                                   "node_id": int(body.node_ids[i.node])} for i in body.interfaces],
                   "output_nodes": int(body.output_nodes.size), "nodes": int(body.positions.shape[0]),
                   "stress_field": _stress_field_info(body, path),
                   "paths": {p.name: {"nodes": int(p.nodes.size), "dofs": p.retained_dofs}
                             for p in body.paths.values()}}
        if emitted(payload, as_json):
            return
        click.echo(f"{path}: flexible body {body.name!r}, {body.n_modes} elastic modes, {payload['nodes']} nodes, "
                   f"mass {body.invariants.mass:.6g} kg")
        for i in payload["interfaces"]:
            click.echo(f"  interface {i['name']}: {i['spider']}, dofs {i['dofs']}, node id {i['node_id']}")
        click.echo("  elastic frequencies [Hz]: " + ", ".join(f"{f:.2f}" for f in body.frequencies_hz))
        sf = payload["stress_field"]
        click.echo(f"  stress field: {sf['nodes']} nodes ({sf['scope']}), {sf['file_bytes'] / 1e6:.2f} MB in the file "
                   f"({sf['memory_bytes'] / 1e6:.2f} MB float32 in memory)" if sf else "  stress field: none")
        return
    _describe_hdf5(path, kind, as_json)


def _stress_field_info(body, path: str) -> dict | None:
    """Nodes, scope and stored size (compressed bytes in the file, float32 bytes in memory) of the stress field."""
    from reduction.stressfield import stored_size

    field = body.stress_field
    if field is None:
        return None
    with h5py.File(path, "r") as f:
        size = stored_size(f)
    return {"nodes": int(field.nodes.size), "scope": field.scope, "file_bytes": size,
            "memory_bytes": field.nbytes}


def _stored_warnings(value) -> list[str]:
    """The ``warnings`` attribute of a results file (a JSON list) as one-line texts."""
    if not value:
        return []
    try:
        items = json.loads(value) if isinstance(value, str) else list(value)
    except ValueError:
        items = [value]
    return [" ".join(str(item).split()) for item in items if str(item).strip()]


def _describe_hdf5(path: str, kind, as_json: bool) -> None:
    """List every dataset of a results (or other flexmbs) file with its shape and unit."""
    from flexmbs.results.results import _plain

    signals = []
    with h5py.File(path, "r", locking=False) as f:
        attrs = {k: _plain(v) for k, v in f.attrs.items()}

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                signals.append({"name": name, "shape": list(obj.shape), "unit": str(obj.attrs.get("unit", ""))})

        f.visititems(visit)
        solver = {k: _plain(v) for k, v in (f["solver"].attrs.items() if isinstance(f.get("solver"), h5py.Group)
                                             else [])}
    if emitted({"file": path, "kind": str(kind or "hdf5"), "attributes": attrs, "solver": solver, "signals": signals},
               as_json):
        return
    click.echo(f"{path}: {kind or 'HDF5 file'}")
    for key, value in attrs.items():
        if key == "warnings":  # the run's warnings, one line each (the results keep them: issue 44)
            continue
        click.echo(f"  {key}: {value}")
    for text in _stored_warnings(attrs.get("warnings")):
        click.echo(f"  warning: {text}")
    if "steps" in solver:  # how the run went: which engine (issue 26), steps, Newton work, time
        click.echo(f"  solver: {solver.get('engine', 'python')} engine, {solver['steps']} steps "
                   f"({solver.get('rejected_steps', 0)} rejected), {solver.get('newton_iterations', 0)} Newton "
                   f"iterations, {solver.get('wall_time_s', float('nan')):.3g} s wall")
    for s in signals:
        click.echo(f"  {s['name']:<50} {str(tuple(s['shape'])):>16}  [{s['unit']}]")
