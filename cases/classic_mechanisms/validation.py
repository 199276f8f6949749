"""Validation rows of the classic mechanisms with redundant constraints (``flexmbs validate``, issue 27).

Each mechanism is checked against a reference computed another way. Bricard's linkage is compared with a
minimal-coordinate model of our own (:func:`cases.classic_mechanisms.bricard.reference_motion`). The door and the
parallelogram are compared with the exact pendulum equation and with statics (the weight carried by the hinges). The
linearization of the two-hinge door is compared with that of the same door on one hinge: the redundancy removed by
hand. The tests of the case assert on these rows.
"""
from __future__ import annotations

import warnings

import numpy as np

from flexmbs.catalog.validation import row

ORIGIN_BRICARD = "own minimal-coordinate model (product of exponentials + Lagrange, DOP853 rtol 1e-9)"
ORIGIN_PENDULUM = "I_O θ'' = -m g d sin θ (exact pendulum, DOP853 rtol 1e-12)"
ORIGIN_GRUEBLER = "Grübler count vs known mobility"


def _simulate(model, t_end, **options):
    import flexmbs as fm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the redundancy report is read from the results below
        return fm.simulate(model, t_end, **options)


def bricard_rows(quick: bool = True) -> list:
    """Bricard (IFToMM A04): one dropped equation, energy, positions at t = 1 s against the minimal-coordinate model."""
    from . import bricard

    res = _simulate(bricard.build_model(), 1.0, rtol=1e-7, atol=1e-9, output_interval=0.05)
    dropped = res.attributes.get("redundant_constraints", "")
    n_dropped = sum(int(len(line.split("equation(s) ")[1].split(" dropped")[0].split(", ")))
                    for line in dropped.split("\n") if line)
    energy = res.energy()
    drift = float(np.ptp(energy["total"]) / np.max(energy["kinetic"]))
    reference = bricard.reference_motion(np.array([0.0, 1.0]))
    centres = np.array([res[f"body/rod{k + 1}/position"][-1] for k in range(5)])
    deviation = float(np.max(np.abs(centres - reference["centres"][-1])))
    return [
        row("Bricard: equations dropped as redundant (6 revolutes, 5 bodies, 1 DOF)", 1, n_dropped, kind="analytic",
            origin=ORIGIN_GRUEBLER, unit="1", tolerance=0.0, relative=False, note=dropped),
        row("Bricard: total energy drift over 1 s / peak kinetic energy", 0.0, drift, kind="conservation law",
            origin="energy conservation (no dissipation)", unit="1", tolerance=1e-4, relative=False),
        row("Bricard: largest rod-centre position difference at t = 1 s", 0.0, deviation, kind="analytic",
            origin=ORIGIN_BRICARD, unit="m", tolerance=1e-4, relative=False),
    ]


def door_rows(quick: bool = True) -> list:
    """Door on two hinges: statics of the hanging door, the swing as a pendulum, the linearization vs one hinge."""
    import flexmbs as fm

    from . import door

    rows = []
    # statics: hanging at rest, the two (minimum-norm) hinge forces carry the weight and balance its moment
    res = _simulate(door.build_door(0.0), 0.2, rtol=1e-8, atol=1e-10)
    forces = [res[f"joint/hinge{k}/force"][-1] for k in (1, 2)]
    torques = [res[f"joint/hinge{k}/torque"][-1] for k in (1, 2)]
    weight = door.DOOR_MASS * door.G
    total = forces[0] + forces[1]
    centre = res["body/door/position"][-1]
    hinges = [np.array([0.0, 0.0, -0.5 * door.HINGE_SPACING]), np.array([0.0, 0.0, 0.5 * door.HINGE_SPACING])]
    moment = sum(np.cross(x - centre, f) + m for x, f, m in zip(hinges, forces, torques))
    rows.append(row("door at rest: vertical hinge force sum / weight", 1.0, float(total[1] / weight),
                    kind="analytic", origin="statics: ΣF = m g", unit="1", tolerance=1e-6, relative=False,
                    note=f"split {forces[0][1]:.6g} N + {forces[1][1]:.6g} N (minimum norm; flagged: "
                         f"{res.attributes.get('redundant_joints', '')})"))
    rows.append(row("door at rest: |moment of the hinge loads about the centre of mass| / (m g · half height)",
                    0.0, float(np.linalg.norm(moment) / (weight * 0.5 * door.DOOR_SIZE[1])), kind="analytic",
                    origin="statics: ΣM = 0", unit="1", tolerance=1e-6, relative=False))
    # dynamics: the swing from 30° as a compound pendulum
    res = _simulate(door.build_door(30.0), 2.0, rtol=1e-8, atol=1e-10, output_interval=0.05)
    inertia, moment_coefficient = door.door_pendulum()
    exact = door.pendulum_angle(res.time, inertia, moment_coefficient, np.radians(30.0))
    centre = res["body/door/position"]
    angle = np.arctan2(centre[:, 0], -centre[:, 1])
    rows.append(row("door swinging from 30°: largest angle difference over 2 s", 0.0,
                    float(np.max(np.abs(angle - exact))), kind="analytic", origin=ORIGIN_PENDULUM, unit="rad",
                    tolerance=1e-5, relative=False))
    # the linearization: two hinges (one redundant) against one hinge, same damped door
    eigen = []
    for hinges in (2, 1):
        model = door.build_door(0.0, hinges=hinges, hinge_damping=2.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lin = fm.linearize(model, at="static", coordinates=["joint/hinge1/rotation"])
        eigen.append(np.sort_complex(lin.eigenvalues()))
    rows.append(row("door: eigenvalues with two hinges vs one hinge (largest relative difference)", 0.0,
                    float(np.max(np.abs(eigen[0] - eigen[1]) / np.abs(eigen[1]))), kind="analytic",
                    origin="the same machine with the redundancy removed by hand", unit="1", tolerance=1e-8,
                    relative=False, note=f"eigenvalues {', '.join(f'{v:.6g}' for v in eigen[0])} 1/s"))
    return rows


def parallelogram_rows(quick: bool = True) -> list:
    """Three cranks and a coupler in 3D: 7 dropped equations, a translating coupler, the pendulum in the crank angle."""
    from . import door

    res = _simulate(door.build_parallelogram(30.0), 2.0, rtol=1e-8, atol=1e-10, output_interval=0.05)
    lines = [line for line in res.attributes.get("redundant_constraints", "").split("\n") if line]
    n_dropped = sum(len(line.split("equation(s) ")[1].split(" dropped")[0].split(", ")) for line in lines)
    angles = np.array([res[f"joint/pivot{k}/rotation"] for k in (1, 2, 3)])
    coupler = res["body/coupler/orientation"]  # Euler parameters; a translating coupler keeps (1, 0, 0, 0)
    turn = float(np.max(2.0 * np.arcsin(np.clip(np.linalg.norm(coupler[:, 1:], axis=1), 0.0, 1.0))))
    inertia, moment = door.parallelogram_pendulum()
    exact = door.pendulum_angle(res.time, inertia, moment, np.radians(30.0))
    first = angles[0]  # the pivot's angle from the ground marker's x axis: the crank's angle from the vertical
    return [
        row("parallelogram: equations dropped (4 bodies, 6 revolutes, 1 DOF)", 7, n_dropped, kind="analytic",
            origin=ORIGIN_GRUEBLER, unit="1", tolerance=0.0, relative=False),
        row("parallelogram: largest coupler rotation over 2 s", 0.0, turn, kind="analytic",
            origin="kinematics: the coupler of a parallelogram translates", unit="rad", tolerance=1e-8,
            relative=False),
        row("parallelogram: largest difference between the three crank angles", 0.0,
            float(np.max(np.ptp(angles, axis=0))), kind="analytic", origin="kinematics: equal cranks turn alike",
            unit="rad", tolerance=1e-8, relative=False),
        row("parallelogram: crank angle vs the equivalent pendulum (largest difference over 2 s)", 0.0,
            float(np.max(np.abs(first - exact))), kind="analytic", origin=ORIGIN_PENDULUM, unit="rad",
            tolerance=1e-5, relative=False),
    ]


def peer_rows(quick: bool = True) -> list:
    """Issue 48, what a peer's test suite asks for: a point-on-line pendulum, a coupled 6×6 bushing and a free–free
    modal basis, each against a closed form or the full FE model."""
    import math

    import flexmbs as fm

    g, mass, d, (ixx, iyy, izz) = 9.81, 1.5, 0.4, (0.11, 0.07, 0.05)
    model = fm.Model("point-on-line", gravity=(0.0, -g, 0.0))
    body = model.add_rigid_body("body", mass=mass, inertia=(ixx, iyy, izz), position=(0.0, -d, 0.0))
    model.add_joint("point-on-line", model.add_marker(model.ground, "support"),
                    model.add_marker(body, "pivot", position=(0.0, d, 0.0)), name="joint", axis=(1.0, 0.0, 0.0))
    lam = fm.linearize(model, at="static").eigenvalues()
    found = np.sort(lam.imag[lam.imag > 1e-6 * np.abs(lam).max()])
    across, along = math.sqrt(mass * g * d / (ixx + mass * d**2)), math.sqrt(mass * g * d / izz)
    origin = "small oscillations: pivot sliding freely along a horizontal line"
    rows = [row("point-on-line pendulum: swing across the line ω = √(m g d / (I_xx + m d²))", across, found[0],
                kind="analytic", origin=origin, unit="rad/s", tolerance=1e-8),
            row("point-on-line pendulum: swing along the line ω = √(m g d / I_zz) (centre of mass stays)", along,
                found[1], kind="analytic", origin=origin, unit="rad/s", tolerance=1e-8)]
    # a coupled 6×6 bushing: eigenvalues of M s'' + D s' + K s = 0
    rng = np.random.default_rng(7)
    scale = np.diag([1.0, 1.0, 1.0, 0.1, 0.1, 0.1])
    a, b = rng.standard_normal((6, 6)), rng.standard_normal((6, 6))
    k = scale @ (a @ a.T + 6.0 * np.eye(6)) @ scale * 2e4
    c = scale @ (b @ b.T + 6.0 * np.eye(6)) @ scale * 5.0
    inertia = np.array([0.04, 0.06, 0.05])
    model = fm.Model("bushing6", gravity=(0.0, 0.0, 0.0))
    block = model.add_rigid_body("block", mass=3.0, inertia=tuple(inertia))
    model.add_force(fm.MatrixBushing(model.add_marker(model.ground, "seat"), model.add_marker(block, "centre"),
                                     stiffness=k, damping=c, name="mount"))
    lam = np.sort_complex(fm.linearize(model, at="static").eigenvalues())
    m = np.diag(np.concatenate([np.full(3, 3.0), inertia]))
    state = np.block([[np.zeros((6, 6)), np.eye(6)], [-np.linalg.solve(m, k), -np.linalg.solve(m, c)]])
    exact = np.sort_complex(np.linalg.eigvals(state))
    rows.append(row("6×6 bushing (coupled K and D): largest relative eigenvalue difference", 0.0,
                    float(np.max(np.abs(lam - exact) / np.abs(exact))), kind="analytic",
                    origin="eigenvalues of [[0, I], [−M⁻¹K, −M⁻¹D]]", unit="1", tolerance=1e-7, relative=False))
    # a free–free modal basis: its frequencies are the full model's
    import tempfile

    from fem.analysis import modal_analysis
    from fem.mesh import load_mesh
    from fem.meshing import bar_mesh
    from fem.model import solid_model
    from reduction import reduce

    with tempfile.TemporaryDirectory() as folder:
        mesh = load_mesh(bar_mesh(f"{folder}/bar.msh", length=0.5, width=0.04, height=0.04, size=0.02, order=1,
                                  hexahedra=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = reduce(solid_model(mesh, "steel"), [], 8, compare_modes=0, stress_field="none")
    full = modal_analysis(solid_model(mesh, "steel"), 14).frequencies_hz[6:]
    rows.append(row("free–free basis (8 modes, hexahedral bar): largest relative frequency difference", 0.0,
                    float(np.max(np.abs(np.sort(body.frequencies_hz) / np.sort(full) - 1.0))), kind="full FE",
                    origin="full FE free–free modal analysis", unit="1", tolerance=1e-8, relative=False))
    return rows


CHECKS = [("Bricard's mechanism (IFToMM A04)", bricard_rows, True),
          ("door on two coaxial hinges", door_rows, True),
          ("parallelogram of three cranks in 3D", parallelogram_rows, True),
          ("joints, bushing and free–free basis a peer's test suite asks for (issue 48)", peer_rows, True)]
