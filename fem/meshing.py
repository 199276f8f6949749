"""Meshes of simple machine parts generated with gmsh (OpenCASCADE kernel).

Every generator writes a ``.msh`` file (format 4.1 unless ``msh_version=2.2``) and names its regions with physical
groups, so the result goes through :func:`fem.mesh.load_mesh` like any user mesh.
"""
from __future__ import annotations

import os
from contextlib import contextmanager

import numpy as np

__all__ = ["bar_mesh", "connecting_bar_mesh", "gmsh_session", "structured_bar_mesh"]


@contextmanager
def gmsh_session(name: str):
    """Initialize gmsh quietly for one model and always finalize it."""
    import gmsh

    # Python's Ctrl-C handler is kept: gmsh's (interruptible=True) restores the default action, and the process died
    # by the signal without a word and left its temporary; flexmbs mesh ends a meshing it interrupts in one line
    # (flexmbs/cli/interrupt.py, issue 43)
    gmsh.initialize(readConfigFiles=False, interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.option.setNumber("General.NumThreads", 1)
        gmsh.model.add(name)
        yield gmsh
    finally:
        gmsh.finalize()


def _finish(gmsh, path: str, size: float, order: int, hexahedra: bool, msh_version: float) -> str:
    gmsh.option.setNumber("Mesh.MeshSizeMax", size)
    gmsh.option.setNumber("Mesh.MeshSizeMin", size * 0.5)
    if hexahedra:  # structured hexahedra come from recombined extrusions; ask for complete 27-node hexahedra
        gmsh.option.setNumber("Mesh.SecondOrderIncomplete", 0)
    gmsh.model.mesh.generate(3)
    if order > 1:
        gmsh.model.mesh.setOrder(order)
    gmsh.option.setNumber("Mesh.MshFileVersion", msh_version)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    gmsh.write(path)
    return path


def bar_mesh(path: str, length: float = 1.0, width: float = 0.05, height: float = 0.05, size: float = 0.0125,
             order: int = 2, hexahedra: bool = False, msh_version: float = 4.1) -> str:
    """A prismatic bar along x from 0 to ``length`` with cross-section ``width`` (y) × ``height`` (z).

    Hexahedra come from a transfinite (structured) mesh with ``round(dim/size)`` divisions per edge.
    Physical groups: volume ``bar``, surfaces ``end_x0`` and ``end_x1``.
    """
    with gmsh_session("bar") as gmsh:
        if hexahedra:
            counts = [max(1, int(round(d / size))) for d in (length, width, height)]
            p = gmsh.model.geo.addPoint(0, 0, 0)
            line = gmsh.model.geo.extrude([(0, p)], length, 0, 0, numElements=[counts[0]], recombine=True)
            surf = gmsh.model.geo.extrude([line[1]], 0, width, 0, numElements=[counts[1]], recombine=True)
            vol = gmsh.model.geo.extrude([surf[1]], 0, 0, height, numElements=[counts[2]], recombine=True)
            gmsh.model.geo.synchronize()
            volume = vol[1][1]
        else:
            volume = gmsh.model.occ.addBox(0, 0, 0, length, width, height)
            gmsh.model.occ.synchronize()
        gmsh.model.addPhysicalGroup(3, [volume], name="bar")
        _end_groups(gmsh, length)
        return _finish(gmsh, path, size, order, hexahedra, msh_version)


def _end_groups(gmsh, length: float) -> None:
    for name, x in (("end_x0", 0.0), ("end_x1", length)):
        eps = 1e-6 * max(length, 1.0)
        tags = [t for _, t in gmsh.model.getEntitiesInBoundingBox(x - eps, -1e9, -1e9, x + eps, 1e9, 1e9, 2)]
        if tags:
            gmsh.model.addPhysicalGroup(2, tags, name=name)


def connecting_bar_mesh(path: str, length: float = 2.5, width: float = 0.091, height: float = 0.061,
                        eye_diameter: float = 0.17, bore_diameter: float = 0.08, eye_thickness: float | None = None,
                        size: float = 0.02, order: int = 2, msh_version: float = 4.1) -> str:
    """A connecting bar: rectangular shank between two round eyes with bearing bores (seed 003 §3.2.1.2).

    The default section (91 × 61 mm steel, eyes Ø170 mm with Ø80 mm bores) is chosen so that the first free–free
    bending frequencies are near seed 003 Table 3-1 (44.2 Hz in z, 65.4 Hz in y); the Husky drawing is not public.

    The bore centres are at x = 0 and x = ``length`` on the x axis; the shank is ``width`` (y) × ``height`` (z);
    the eyes are cylinders of ``eye_diameter`` along z with through bores of ``bore_diameter``, ``eye_thickness``
    thick in z (default: the shank height). Physical groups: volume ``bar``, surfaces ``bore_a`` (x = 0) and
    ``bore_b`` (x = length).
    """
    thickness = height if eye_thickness is None else eye_thickness
    with gmsh_session("connecting_bar") as gmsh:
        occ = gmsh.model.occ
        z0 = -thickness / 2.0
        shank = occ.addBox(0.0, -width / 2.0, -height / 2.0, length, width, height)
        eye_a = occ.addCylinder(0.0, 0.0, z0, 0.0, 0.0, thickness, eye_diameter / 2.0)
        eye_b = occ.addCylinder(length, 0.0, z0, 0.0, 0.0, thickness, eye_diameter / 2.0)
        body, _ = occ.fuse([(3, shank)], [(3, eye_a), (3, eye_b)])
        bore_a = occ.addCylinder(0.0, 0.0, z0 - 1.0, 0.0, 0.0, thickness + 2.0, bore_diameter / 2.0)
        bore_b = occ.addCylinder(length, 0.0, z0 - 1.0, 0.0, 0.0, thickness + 2.0, bore_diameter / 2.0)
        result, _ = occ.cut(body, [(3, bore_a), (3, bore_b)])
        occ.synchronize()
        gmsh.model.addPhysicalGroup(3, [t for _, t in result], name="bar")
        r = bore_diameter / 2.0
        for name, xc in (("bore_a", 0.0), ("bore_b", length)):
            tags = [t for _, t in gmsh.model.getEntitiesInBoundingBox(xc - r * 1.01, -r * 1.01, z0 - 1e-6,
                                                                        xc + r * 1.01, r * 1.01, -z0 + 1e-6, 2)]
            gmsh.model.addPhysicalGroup(2, tags, name=name)
        return _finish(gmsh, path, size, order, False, msh_version)


def bore_selector(center, axis_direction, radius: float, half_length: float) -> str:
    """The ``cylinder:`` selector of a bore of ``radius`` centred at ``center`` along ``axis_direction``."""
    c = np.asarray(center, float)
    d = np.asarray(axis_direction, float)
    d = d / np.linalg.norm(d)
    a, b = c - half_length * d, c + half_length * d
    return "cylinder:" + ",".join(f"{v:.9g}" for v in (*a, *b, radius))


def structured_bar_mesh(length: float, width: float, height: float, nx: int, ny: int, nz: int,
                        source: str = "structured bar"):
    """A structured 8-node hexahedral :class:`fem.mesh.Mesh` of a bar along x from 0 to ``length``, centred on the
    x axis (``width`` along y, ``height`` along z), built directly without gmsh."""
    import meshio

    from fem.mesh import from_meshio

    xs, ys, zs = (np.linspace(a, b, n + 1) for a, b, n in ((0.0, length, nx), (-width / 2, width / 2, ny),
                                                            (-height / 2, height / 2, nz)))
    grid = np.stack(np.meshgrid(xs, ys, zs, indexing="ij"), axis=-1).reshape(-1, 3)

    def nid(i, j, k):
        return (i * (ny + 1) + j) * (nz + 1) + k

    i, j, k = (a.ravel() for a in np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij"))
    cells = np.stack([nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                      nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)], axis=1)
    return from_meshio(meshio.Mesh(grid, [("hexahedron", cells)]), source=source)


def tapered_membrane_mesh(path: str, nx: int = 16, ny: int = 8, thickness: float = 0.05,
                          msh_version: float = 4.1) -> str:
    """NAFEMS FV32 (R0015 test 32, cantilevered tapered membrane): the trapezoid with corners (0, ±2.5) and
    (10, ±0.5) m, ``thickness`` in z, meshed with ``nx`` × ``ny`` structured 27-node hexahedra in one layer.

    Physical groups: volume ``membrane``, surfaces ``root`` (x = 0) and ``bottom`` (z = 0). The benchmark's
    membrane state is held by ``u_x = u_y = 0`` on ``root`` and ``u_z = 0`` on ``bottom`` (a solid held in z on
    all its nodes would be in plane strain, ≈ 5 % stiffer than the plane-stress membrane of the benchmark).
    """
    with gmsh_session("fv32") as gmsh:
        geo = gmsh.model.geo
        corners = [geo.addPoint(*p) for p in ((0, -2.5, 0), (10, -0.5, 0), (10, 0.5, 0), (0, 2.5, 0))]
        lines = [geo.addLine(corners[i], corners[(i + 1) % 4]) for i in range(4)]
        surface = geo.addPlaneSurface([geo.addCurveLoop(lines)])
        for line, count in zip(lines, (nx, ny, nx, ny)):
            geo.mesh.setTransfiniteCurve(line, count + 1)
        geo.mesh.setTransfiniteSurface(surface)
        geo.mesh.setRecombine(2, surface)
        volume = geo.extrude([(2, surface)], 0, 0, thickness, numElements=[1], recombine=True)
        geo.synchronize()
        gmsh.model.addPhysicalGroup(3, [volume[1][1]], name="membrane")
        gmsh.model.addPhysicalGroup(2, [surface], name="bottom")
        gmsh.model.addPhysicalGroup(2, [volume[5][1]], name="root")  # extruded from the line x = 0
        gmsh.option.setNumber("Mesh.SecondOrderIncomplete", 0)
        gmsh.model.mesh.generate(3)
        gmsh.model.mesh.setOrder(2)
        gmsh.option.setNumber("Mesh.MshFileVersion", msh_version)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        gmsh.write(path)
    return path
