"""Stand-in flexible structure of the machine-creeping case: clamp base + stationary platen + tie bars as ONE body
(seed 003 §5.1.2, appendix C), meshed with gmsh, reduced by Craig–Bampton, cached on disk.

Axes: x machine direction (x = 0 is the stationary platen's back face, the moving platen travels towards −… +x
over the base), y lateral, z up (z = 0 the pad plane under the base). Parts, all fused into one volume:

* clamp base: two solid side girders ``L × t × H`` along x at y = ±(W − t)/2 joined by two cross plates (the
  welded base of 7.4 t; shell model of the thesis replaced by solid plates);
* stationary platen: a solid plate ``W × 3.0 m`` of the platen's 36 t (``platen_thickness``) standing on the base at
  0 ≤ x ≤ thickness;
* four tie bars Ø339 × 5800 mm cantilevered from the platen (through it) at the 2150 × 1700 mm spacing.

Interfaces (RBE2 spiders, translations only as the thesis' modified Craig–Bampton macro, L7380-7404): 18 support
pads under the girders (``pad_00``..``pad_17``), the injection-unit joint on the platen's back face (``injection``),
two stroke-cylinder mounts on the platen's front face (``cylinder_l``, ``cylinder_r``). Sliding paths: the top of
each girder (``rail_l``, ``rail_r``) and the bottom line of each lower tie bar ... kept interior (modal recovery,
as in the thesis, L7314-7338).
"""
from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np

CACHE_VERSION = 1

CYLINDER_MOUNT_Y = {"cylinder_l": -1.5, "cylinder_r": 1.5}  # m, assumed: y of the two stroke-cylinder mounts


def pad_positions(params: dict) -> np.ndarray:
    """Pad centres (n, 3) m under the two girders, evenly spaced along x."""
    n = int(params["n_pads_per_girder"])
    length, width, t = params["base_length"], params["base_width"], params["girder_thickness"]
    xs = np.linspace(0.25, length - 0.25, n)
    ys = (-(width - t) / 2, (width - t) / 2)
    return np.array([(x, y, 0.0) for y in ys for x in xs])


def tie_bar_axes(params: dict) -> np.ndarray:
    """(y, z) of the four tie-bar axes (4, 2), m."""
    h, v = params["tie_bar_spacing_horizontal"] / 2, params["tie_bar_spacing_vertical"] / 2
    zc = params["base_height"] + params["platen_height"] / 2
    return np.array([(-h, zc - v), (h, zc - v), (-h, zc + v), (h, zc + v)])


def structure_mesh(params: dict, path: str) -> str:
    """Write the gmsh mesh (quadratic tetrahedra) of the structure; physical volumes base, platen, tie_bars."""
    from fem.meshing import gmsh_session

    L, W, H, t = (params[k] for k in ("base_length", "base_width", "base_height", "girder_thickness"))
    tc, hc = params["cross_plate_thickness"], params["cross_plate_height"]
    tp, hp = params["platen_thickness"], params["platen_height"]
    with gmsh_session("machine_structure") as gmsh:
        occ = gmsh.model.occ
        parts = [occ.addBox(0.0, y - t / 2, 0.0, L, t, H) for y in (-(W - t) / 2, (W - t) / 2)]
        parts += [occ.addBox(x - tc / 2, -(W - t) / 2, H - hc, tc, W - t, hc) for x in (0.3 * L, 0.85 * L)]
        parts.append(occ.addBox(0.0, -W / 2, H, tp, W, hp))
        parts += [occ.addCylinder(0.0, y, z, params["tie_bar_length"], 0.0, 0.0, params["tie_bar_diameter"] / 2)
                  for y, z in tie_bar_axes(params)]
        occ.fragment([(3, parts[0])], [(3, p) for p in parts[1:]])  # one conforming mesh over all parts
        occ.synchronize()
        groups = {"base": [], "platen": [], "tie_bars": []}
        for _, tag in gmsh.model.getEntities(3):
            x, _, z = occ.getCenterOfMass(3, tag)
            region = "tie_bars" if x > tp + 1e-6 and z > H + 1e-6 else ("platen" if z > H - 1e-6 else "base")
            groups[region].append(tag)
        for name, tags in groups.items():
            gmsh.model.addPhysicalGroup(3, tags, name=name)
        gmsh.option.setNumber("Mesh.MeshSizeMax", params["mesh_size"])
        gmsh.option.setNumber("Mesh.MeshSizeMin", 0.3 * params["mesh_size"])
        gmsh.model.mesh.generate(3)
        gmsh.model.mesh.setOrder(2)
        gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        gmsh.write(path)
    return path


def materials(params: dict) -> dict:
    """Element-set materials of appendix C (seed 003 Tables C-1..C-3)."""
    from fem.materials import Material

    return {"base": Material(params["base_youngs_modulus"], params["base_poisson_ratio"], params["base_density"],
                             "welded steel"),
            "platen": Material(params["platen_youngs_modulus"], params["platen_poisson_ratio"],
                               params["platen_density"], "cast iron"),
            "tie_bars": Material(params["tie_bar_youngs_modulus"], 0.3, params["tie_bar_density"], "tie-bar steel")}


def structure_model(params: dict, mesh_path: str):
    """Solid FE model with the pad, injection and cylinder interfaces; returns (model, interfaces, paths)."""
    from fem.mesh import load_mesh
    from fem.model import solid_model

    mesh = load_mesh(mesh_path)
    model = solid_model(mesh, materials(params))
    t, W, H = params["girder_thickness"], params["base_width"], params["base_height"]
    half = max(0.15, 0.75 * params["mesh_size"])  # m, assumed pad footprint half-length (>= 3 non-collinear nodes)
    for k, (x, y, _) in enumerate(pad_positions(params)):
        sel = f"box:{x - half},{y - t / 2},-1e-3,{x + half},{y + t / 2},1e-3"
        model.add_reference_node(f"pad_{k:02d}", sel, "rbe2", point=(x, y, 0.0))
    zc = H + params["platen_height"] / 2
    model.add_reference_node("injection", f"box:-1e-3,-0.4,{zc - 0.4},1e-3,0.4,{zc + 0.4}", "rbe2",
                             point=(0.0, 0.0, zc))
    tp = params["platen_thickness"]
    for name, y in CYLINDER_MOUNT_Y.items():
        model.add_reference_node(name, f"box:{tp - 1e-3},{y - 0.12},{H + 0.1},{tp + 1e-3},{y + 0.12},{H + 0.4}",
                                 "rbe2", point=(tp, y, H + 0.25))
    interfaces = dict.fromkeys(model.references, "123")  # translations only (L7380-7404)
    x0, x1 = tp + 0.3, params["base_length"] - 0.05
    paths = {f"rail_{side}": f"box:{x0},{y - t / 2},{H - 1e-3},{x1},{y + t / 2},{H + 1e-3}"
             for side, y in (("l", -(W - t) / 2), ("r", (W - t) / 2))}
    r = params["tie_bar_diameter"] / 2
    for k, (y, z) in enumerate(tie_bar_axes(params)):
        x1_bar = params["tie_bar_length"] - 0.05
        paths[f"tie_bar_{k}"] = f"box:{x0},{y - 0.5 * r},{z - r - 1e-3},{x1_bar},{y + 0.5 * r},{z - 0.85 * r}"
    return model, interfaces, paths


def cache_key(params: dict) -> str:
    """16 hex digits of the SHA-256 of the structure's geometry, material, mesh and reduction settings."""
    settings = {k: params[k] for k in _STRUCTURE_KEYS if k in params} | {"version": CACHE_VERSION}
    if params.get("structure_geometric_stiffness"):  # only then: the cache files of earlier runs stay valid
        settings["geometric_stiffness"] = True
    text = json.dumps(settings, sort_keys=True, default=float)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


_STRUCTURE_KEYS = ("base_length", "base_width", "base_height", "girder_thickness", "cross_plate_thickness",
                   "cross_plate_height", "base_youngs_modulus", "base_poisson_ratio", "base_density", "platen_width",
                   "platen_height", "platen_thickness", "platen_youngs_modulus", "platen_poisson_ratio",
                   "platen_density", "tie_bar_diameter", "tie_bar_length", "tie_bar_spacing_horizontal",
                   "tie_bar_spacing_vertical", "tie_bar_youngs_modulus", "tie_bar_density", "mesh_size",
                   "n_pads_per_girder", "fixed_interface_modes", "modal_damping")


def reduced_structure(params: dict, progress: bool = False, cache: str | None = None, compare_modes: int = 0):
    """The reduced structure from the cache (meshed and reduced on first use, ≈ 15 s at the default mesh; the body
    is then returned as built, without reading the file back), with ``report["cache_file"]``.

    ``compare_modes``: full free–free FE modes for the Table 5-1 comparison (``report["full_free_free_hz"]``). The
    simulation does not need them, so the default 0 skips that second modal analysis (issue 31); a cached body
    without (enough of) them is reduced again with them when they are asked for, and the cache keeps them.
    """
    from flexmbs.results.cache import cache_dir, drop_damaged
    from reduction.io import read_flexbody, write_flexbody
    from reduction.reduce import reduce

    path = os.path.join(cache or cache_dir(), f"machine-creeping-structure-{cache_key(params)}.flex.h5")
    drop_damaged(path)  # a damaged entry is rebuilt, with a note
    if not os.path.exists(path) or (compare_modes and _compared(path) < compare_modes):
        def say(message):
            if progress:
                print(f"machine-creeping: {message}", file=sys.stderr)

        mesh_path = path[:-len(".flex.h5")] + ".msh"
        say(f"meshing the structure (size {params['mesh_size']} m)")
        structure_mesh(params, mesh_path)
        model, interfaces, paths = structure_model(params, mesh_path)
        say(f"Craig–Bampton reduction of {model.n_dofs} dofs")
        body = reduce(model, interfaces, int(params["fixed_interface_modes"]), damping=params["modal_damping"],
                      name="structure", compare_modes=compare_modes, progress=say, paths=paths,
                      geometric_stiffness=bool(params.get("structure_geometric_stiffness", False)))
        write_flexbody(body, path, source={"case": "machine-creeping", "settings": cache_key(params)})
        os.remove(mesh_path)
        # the body just written, not read back (issue 31: reading it again cost 0.7 s of the cold build); the file
        # stores every array as it is in memory, so a later run reads the same numbers
    else:
        body = read_flexbody(path)
    body.report["cache_file"] = path
    return body


def _compared(path: str) -> int:
    """Number of full free–free modes in the report of the cached body at ``path``."""
    import h5py

    with h5py.File(path, "r", locking=False) as f:
        return int(f["report/full_free_free_hz"].shape[0]) if "report/full_free_free_hz" in f else 0


def table_5_1(body, n: int = 10) -> list[tuple[int, float, float, float]]:
    """Reduced vs full FE free–free elastic frequencies in the Table 5-1 form: (mode, full Hz, reduced Hz, %)."""
    full = np.asarray(body.report["full_free_free_hz"], dtype=float)[:n]
    reduced = np.asarray(body.report["reduced_hz"], dtype=float)[:full.size]
    return [(k + 1, float(f), float(r), float(100.0 * (r / f - 1.0))) for k, (f, r) in enumerate(zip(full, reduced))]


def main(argv=None) -> None:
    """``python -m cases.machine_creeping.structure [--set key=value]...``: reduce (or load) and print Table 5-1."""
    import argparse
    import time

    from cases import load_toml_defaults, parse_assignments

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    defaults = load_toml_defaults(os.path.join(os.path.dirname(__file__), "machine_creeping.toml"))
    params = {**defaults, **parse_assignments(parser.parse_args(argv).set, defaults, "machine-creeping")}
    start = time.perf_counter()
    body = reduced_structure(params, progress=True, compare_modes=10)
    r = body.report
    print(f"{body.report['cache_file']}: {body.n_modes} elastic coordinates from {r['physical_dofs']} dofs, "
          f"mass {body.invariants.mass / 1e3:.2f} t, reduction {r['seconds']:.0f} s (this call "
          f"{time.perf_counter() - start:.1f} s)")
    print("| mode | full FE [Hz] | reduced [Hz] | difference [%] |\n|---|---|---|---|")
    for k, f, red, diff in table_5_1(body):
        print(f"| {k} | {f:.2f} | {red:.2f} | {diff:+.4f} |")


if __name__ == "__main__":
    main()
