"""Preloaded pinned–pinned column (issue 28): the axial-preload check of geometric stiffening, shared by
tests/flexmbs/test_geometric_stiffening.py and the ``flexmbs validate`` rows of this case.

A steel bar 2 m × 20 mm × 30 mm (20 frame elements, interfaces ``a`` and ``b`` at the ends) pinned to the ground at
``a`` and at ``b`` to a 50 g slider on a prismatic joint along the bar, pressed towards ``a`` by a constant force.
References (analytic): ``P_cr = π² E I / L²`` and ``ω² = ω₀² (1 − P/P_cr)`` with ``ω₀ = π² √(EI/ρA L⁴)``, bending in
the global x–y plane (``I = I_y`` of the frame section, out of plane clamped–clamped).
"""
from __future__ import annotations

import warnings

import numpy as np

from fem.materials import parse_material

LENGTH = 2.0  # m
WIDTH, HEIGHT = 0.02, 0.03  # m
AXIAL = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # marker z along the body x axis


def section():
    from fem.beam import rectangular_section

    return rectangular_section(WIDTH, HEIGHT)


def reduced_beam(points, beam_section, material, interfaces, n_modes=6, geometric=True, **options):
    """A straight frame beam through ``points`` reduced with interfaces at its two ends (names ``interfaces``);
    ``options``: further keywords of :func:`reduction.reduce` (e.g. ``name``)."""
    from fem.model import frame_model
    from reduction import reduce

    n = len(points) - 1
    model = frame_model(points, np.column_stack([np.arange(n), np.arange(1, n + 1)]), beam_section, material)
    model.add_interface_node(interfaces[0], 0)
    model.add_interface_node(interfaces[1], n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the report's accuracy notes (torsion modes) are not under test here
        return reduce(model, list(interfaces), n_modes, compare_modes=0, geometric_stiffness=geometric, **options)


def column_body(n_modes=6, geometric=True):
    x = np.linspace(0.0, LENGTH, 21)
    return reduced_beam(np.column_stack([x, 0 * x, 0 * x]), section(), "steel", ("a", "b"), n_modes, geometric)


def column_model(body, load, length=LENGTH):
    """End a on a revolute about z (ground), end b on a revolute to a 50 g slider on an x prismatic joint, pressed
    by ``load`` (N) towards a. Bending in the x–y plane is pinned–pinned (out of plane: clamped–clamped)."""
    import flexmbs as fm

    model = fm.Model("column")
    col = model.add_flexible_body("column", body)
    slider = model.add_rigid_body("slider", 0.05, [1e-4] * 3, position=(length, 0.0, 0.0))
    model.add_joint("revolute", model.add_marker(model.ground, "pin_a"), model.add_marker(col, "a", node="a"))
    model.add_joint("revolute", model.add_marker(col, "b", node="b"), model.add_marker(slider, "pin_b"))
    slide = model.add_joint("prismatic", model.add_marker(model.ground, "guide", position=(length, 0, 0),
                                                          orientation=AXIAL),
                            model.add_marker(slider, "carriage", orientation=AXIAL), name="slide")
    model.add_force(fm.JointActuator(slide, -load, name="preload"))
    return model


def euler_reference():
    """(ω₀ rad/s, P_cr N) of the column (analytic)."""
    steel = parse_material("steel")
    ei = steel.youngs_modulus * section().iy
    omega0 = np.pi**2 * np.sqrt(ei / (steel.density * section().area * LENGTH**4))
    return float(omega0), float(np.pi**2 * ei / LENGTH**2)


def lowest_frequency(body, load) -> tuple[float, float]:
    """Lowest oscillation frequency (rad/s) and the largest real part (1/s) of the linearization under ``load``."""
    import flexmbs as fm

    lam = fm.linearize(column_model(body, load)).eigenvalues()
    return float(np.min(np.abs(lam.imag[lam.imag > 0]))), float(lam.real.max())


SOLID_SIZE = (1.0, 0.02, 0.03)  # m: length, width (y, the bending plane's depth), height (z)


SOLID_EULER_LOAD = float(np.pi**2 * parse_material("steel").youngs_modulus * SOLID_SIZE[2] * SOLID_SIZE[1]**3 / 12.0
                         / SOLID_SIZE[0]**2)  # N, π² E h w³ / (12 L²)


def solid_column_body(folder: str):
    """The column as quadratic hexahedra (hex27, 100 × 2 × 3) with RBE2 ends ``a``, ``b`` on its axis, reduced with
    6 fixed-interface modes and its geometric stiffness; the mesh is written into ``folder``."""
    import os

    from fem.mesh import load_mesh
    from fem.meshing import bar_mesh
    from fem.model import solid_model
    from reduction import reduce

    length, width, height = SOLID_SIZE
    mesh = load_mesh(bar_mesh(os.path.join(folder, "bar.msh"), length, width, height, size=0.01, order=2,
                              hexahedra=True))
    mesh.points[:] -= [0.0, width / 2, height / 2]  # axis on x, as the column joints expect
    fe = solid_model(mesh, "steel")
    x = fe.positions[:, 0]
    fe.add_reference_node("a", np.flatnonzero(np.abs(x) < 1e-9), "rbe2", point=(0.0, 0.0, 0.0))
    fe.add_reference_node("b", np.flatnonzero(np.abs(x - length) < 1e-9), "rbe2", point=(length, 0.0, 0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the report's accuracy notes are not under test here
        return reduce(fe, ["a", "b"], 6, compare_modes=0, stress_field="none", geometric_stiffness=True)
