"""The flexible boom: a gmsh box-section mesh, Craig-Bampton reduction cached on disk, stress history
(docs/cases/excavator.md, "digging-flexible-boom").

Boom frame: origin at the foot pin A, x along A->D, y up, z across. Two straight welded box girders A->``KNEE``->D
(the banana boom), outer section ``section_width`` x ``section_height``, wall ``plate_thickness``, closed by end
plates. The pins A, D sit at the centres of the end faces; the cylinder lugs C (boom cylinder rod, under the boom)
and E (stick cylinder tube, on top at the knee) are rigid (RBE2) spiders from the pin point to the plate nodes within
``LUG_RADIUS`` of the nearest point of the girder surface. Steel with the density scaled so that the mesh weighs the
boom mass of seed 001 §5 (with the lugs, pipes and bosses the box does not model). The cache entry
``excavator-boom-<hash>.flex.h5`` is keyed by :func:`boom_settings`.
"""
from __future__ import annotations

import hashlib
import json
import math
import os

import numpy as np

from flexmbs.results.cache import cache_dir, drop_damaged  # cache_dir: $FLEXMBS_CACHE or ~/.cache/flexmbs

from . import geometry as geo

__all__ = ["KNEE", "cache_dir", "boom_settings", "build_flexbody", "flexible_boom_factory", "von_mises_history",
           "stress_summary", "write_stress_outputs"]

KNEE = (3.0, 0.55)  # m, boom frame: the bend of the banana boom (centre line)
LUG_RADIUS = 0.25  # m
STEEL = {"E": 2.1e11, "nu": 0.3}


def boom_settings(p: dict) -> dict:
    """Everything the reduced boom depends on (the cache key)."""
    return {"version": 3, "pins": {k: list(v) for k, v in geo.PINS["boom"].items()}, "knee": list(KNEE),
            "width": p["section_width"], "height": p["section_height"], "thickness": p["plate_thickness"],
            "mesh_size": p["mesh_size"], "n_modes": int(p["n_modes"]), "damping": p["damping_ratio"],
            "mass": p["boom"], "lug_radius": LUG_RADIUS, "material": STEEL, "stress_field": "surface"}


def _centre_line():
    return [np.array([0.0, 0.0]), np.array(KNEE, float), np.array(geo.PINS["boom"]["D"], float)]


def boom_mesh(path: str, s: dict) -> str:
    """Write the box-section boom mesh (quadratic tetrahedra) to ``path`` with gmsh."""
    from fem.meshing import _finish, gmsh_session  # _finish: the package's common size/order/write step

    w, h, t = s["width"], s["height"], s["thickness"]
    line = _centre_line()
    with gmsh_session("excavator-boom") as gmsh:
        occ = gmsh.model.occ
        outer, inner = [], []
        n_segments = len(line) - 1
        for k, (a, b) in enumerate(zip(line[:-1], line[1:])):
            d = b - a
            length = float(np.linalg.norm(d))
            angle = math.atan2(d[1], d[0])
            # each girder runs half a height past the knee (the two overlap there); the cavities are closed by
            # end plates of thickness t at A and D only
            ext_a = 0.5 * h if k > 0 else 0.0
            ext_b = 0.5 * h if k < n_segments - 1 else 0.0
            plate_a = 0.0 if k > 0 else t
            plate_b = 0.0 if k < n_segments - 1 else t
            box_o = occ.addBox(-ext_a, -h / 2, -w / 2, length + ext_a + ext_b, h, w)
            box_i = occ.addBox(-ext_a + plate_a, -h / 2 + t, -w / 2 + t,
                               length + ext_a + ext_b - plate_a - plate_b, h - 2 * t, w - 2 * t)
            for tag, bucket in ((box_o, outer), (box_i, inner)):
                occ.rotate([(3, tag)], 0, 0, 0, 0, 0, 1, angle)
                occ.translate([(3, tag)], float(a[0]), float(a[1]), 0.0)
                bucket.append((3, tag))
        out_union, _ = occ.fuse(outer[:1], outer[1:])
        in_union, _ = occ.fuse(inner[:1], inner[1:])
        solid, _ = occ.cut(out_union, in_union)
        occ.synchronize()
        gmsh.model.addPhysicalGroup(3, [tag for _, tag in solid], name="boom")
        return _finish(gmsh, path, s["mesh_size"], 2, False, 4.1)


def _surface_point(pin) -> tuple[np.ndarray, np.ndarray]:
    """Nearest point of the girder's centre line to ``pin`` and the unit direction of that girder (boom frame)."""
    pin = np.asarray(pin, float)
    best = None
    for a, b in zip(_centre_line()[:-1], _centre_line()[1:]):
        d = b - a
        u = np.clip((pin - a) @ d / (d @ d), 0.0, 1.0)
        c = a + u * d
        if best is None or np.linalg.norm(pin - c) < np.linalg.norm(pin - best[0]):
            best = (c, d / np.linalg.norm(d))
    return best


def build_flexbody(p: dict, progress: bool = False):
    """Mesh, FE model, reduction (or the cached file); returns ``(flexbody, path, settings)``."""
    from reduction.io import read_flexbody, write_flexbody

    s = boom_settings(p)
    key = hashlib.sha256(json.dumps(s, sort_keys=True).encode()).hexdigest()[:16]
    folder = cache_dir()
    path = os.path.join(folder, f"excavator-boom-{key}.flex.h5")
    drop_damaged(path)  # a damaged entry is rebuilt, with a note
    if os.path.exists(path):
        return read_flexbody(path), path, s
    from fem.mesh import load_mesh
    from fem.model import solid_model

    say = (lambda msg: print(f"[excavator boom] {msg}", flush=True, file=__import__("sys").stderr)) if progress \
        else None
    mesh_path = boom_mesh(os.path.join(folder, f"excavator-boom-{key}.msh"), s)
    mesh = load_mesh(mesh_path)
    volume_model = solid_model(mesh, f"E={STEEL['E']},nu={STEEL['nu']},rho=7850")
    mass = volume_model.rigid_body_properties()["mass"]
    model = solid_model(mesh, f"E={STEEL['E']},nu={STEEL['nu']},rho={7850.0 * s['mass'] / mass}")
    h = s["height"]
    for name, pin in geo.PINS["boom"].items():
        centre, direction = _surface_point(pin)
        pin = np.asarray(pin, float)
        normal = np.array([-direction[1], direction[0]])
        if name in ("A", "D"):
            selector = f"sphere:{pin[0]},{pin[1]},0,{0.5 * h}"
        else:
            side = 1.0 if (pin - centre) @ normal > 0 else -1.0
            surface = centre + side * 0.5 * h * normal
            selector = f"sphere:{surface[0]},{surface[1]},0,{LUG_RADIUS}"
        model.add_reference_node(name, selector, "rbe2", point=(pin[0], pin[1], 0.0))
    from reduction import reduce

    body = reduce(model, list(geo.PINS["boom"]), int(s["n_modes"]), output_nodes=_output_nodes(model),
                  damping=s["damping"], name="boom", progress=say, stress_field="surface")
    write_flexbody(body, path, source={"mesh": mesh_path, "settings": json.dumps(s)})
    return read_flexbody(path), path, s


def _output_nodes(model) -> np.ndarray:
    """Mesh nodes on the outer plates of the girder (stress output), at most ~1500 of them."""
    n = model.mesh.n_nodes if model.mesh is not None else len(model.positions)
    return np.arange(n)[::max(1, n // 1500)]


def flexible_boom_factory(p: dict, progress: bool = False):
    """``(boom_body, info)``: the callable that puts the flexible boom into :func:`mechanics.build_mechanism`."""
    import flexmbs as fm

    from .mechanics import _rotation3

    flexbody, path, settings = build_flexbody(p, progress)
    inv = flexbody.invariants
    keep = np.flatnonzero(np.asarray(flexbody.frequencies_hz) <= p["max_mode_frequency"])
    info = {"flexbody": flexbody, "path": path, "settings": settings, "modes": keep,
            "centre_of_mass": (np.asarray(inv.first_moment) / inv.mass)[:2]}

    def boom_body(model, origin, angle):
        body = model.add_body(fm.FlexibleBody("boom", flexbody, position=(origin[0], origin[1], 0.0),
                                              orientation=_rotation3(angle), modes=keep,
                                              damping_ratio=p["damping_ratio"]))
        info["body"] = body
        return body

    return boom_body, info


def von_mises_history(res, flexbody, modes=None) -> np.ndarray:
    """Von Mises stress (n_samples, n_output_nodes), Pa, from the modal coordinates and the modal stress."""
    q = res["body/boom/modal_coordinates"]  # (n, m) of the kept modes
    stress = np.asarray(flexbody.modal_stress)[:, :, modes if modes is not None else slice(None)]
    sigma = np.einsum("kcm,nm->nkc", stress, q)  # xx yy zz yz xz xy
    xx, yy, zz, yz, xz, xy = (sigma[..., k] for k in range(6))
    return np.sqrt(0.5 * ((xx - yy) ** 2 + (yy - zz) ** 2 + (zz - xx) ** 2) + 3.0 * (xy**2 + yz**2 + xz**2))


def stress_summary(res, info: dict) -> dict:
    """Max von Mises stress and where, plus the frequencies of the reduced boom next to the full FE model."""
    fb = info["flexbody"]
    vm = von_mises_history(res, fb, info.get("modes"))
    k = int(np.argmax(vm.max(axis=0)))
    report = getattr(fb, "report", {}) or {}
    full = np.asarray(report.get("full_free_free_hz", []), dtype=float)
    reduced = np.asarray(fb.frequencies_hz, dtype=float)
    n = min(4, full.size, reduced.size)
    return {"max_von_mises_MPa": float(vm.max()) / 1e6,
            "hotspot_node_id": int(fb.node_ids[fb.output_nodes[k]]),
            "hotspot_position_m": np.asarray(fb.positions[fb.output_nodes[k]]).tolist(),
            "boom_reduced_hz": reduced[:n].tolist(), "boom_full_fe_hz": full[:n].tolist(),
            "boom_frequency_error_rel": (np.abs(reduced[:n] / full[:n] - 1.0).tolist() if n else []),
            "boom_flexbody": info["path"]}


def write_stress_outputs(res, info: dict, folder: str) -> list[str]:
    """Stress history at the most stressed output node (PNG, CSV)."""
    from cases._common import save_figure

    from .plotting import new_figure, write_csv

    vm = von_mises_history(res, info["flexbody"], info.get("modes"))
    k = int(np.argmax(vm.max(axis=0)))
    fig, (ax,) = new_figure()
    ax.plot(res.time, vm[:, k] / 1e6)
    ax.set(xlabel="time [s]", ylabel="von Mises [MPa]", title="boom: stress history at the most stressed node")
    files = [save_figure(fig, os.path.join(folder, "boom_stress.png"))]
    files.append(write_csv(os.path.join(folder, "boom_stress.csv"), {"time [s]": res.time,
                                                                       "von Mises [Pa]": vm[:, k]}))
    return files
