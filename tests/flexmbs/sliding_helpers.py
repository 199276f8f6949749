"""A simply supported solid beam (quadratic hexahedra) with a slider on its top centre line, for the
SlidingContact tests; plus the analytic moving-load solution (Frýba) it is checked against."""
from __future__ import annotations

import numpy as np

import flexmbs as fm

E, NU, RHO = 210e9, 0.30, 7850.0  # steel (fem.materials)

# marker z axis = global y
_ABOUT_Y = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])
_ALONG_X = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # prismatic axis (marker z) = global x


def beam_fe(mesh_dir, length=3.0, width=0.1, height=0.1, size=0.1):
    """Steel bar [0, L] × [0, b] × [0, h] of 27-node hexahedra, RBE2 reference nodes A, B at the end-face
    centres; returns the FE model and the top centre-line selector (end nodes included / excluded)."""
    from fem.mesh import load_mesh
    from fem.meshing import bar_mesh
    from fem.model import solid_model

    path = bar_mesh(str(mesh_dir / f"ss_beam_{length}_{size}.msh"), length=length, width=width, height=height,
                    size=size, order=2, hexahedra=True)
    fe = solid_model(load_mesh(path), "steel")
    eps = 1e-3 * size
    fe.add_reference_node("A", fe.select(f"box:{-eps},-1,-1,{eps},1,1"), "rbe2", point=(0.0, width / 2, height / 2))
    fe.add_reference_node("B", fe.select(f"box:{length - eps},-1,-1,{length + eps},1,1"), "rbe2",
                          point=(length, width / 2, height / 2))
    y, z = width / 2, height
    full = f"box:{-eps},{y - eps},{z - eps},{length + eps},{y + eps},{z + eps}"
    inner = f"box:{size / 4},{y - eps},{z - eps},{length - size / 4},{y + eps},{z + eps}"
    return fe, full, inner


def beam_model(flexbody, length, width, height, position, speed=0.0, load=0.0, slider_mass=0.5, stiffness=1e9,
               damping=3e4, exponent=1.0, ramp=None, shoe_length=0.0, gravity=0.0, static=0.0, dynamic=0.0,
               penetration=None, damping_ratio=None):
    """Beam on a revolute (A) and a spherical joint (B); a slider pressed by ``load`` (N) down onto the top line,
    carried at prescribed ``speed`` (m/s) from ``position`` (m) by a carriage on a prismatic joint along x."""
    model = fm.Model("slider on beam", gravity=(0.0, 0.0, -gravity))
    beam = model.add_flexible_body("beam", flexbody, damping_ratio=damping_ratio)
    model.add_joint("spherical", model.add_marker(model.ground, "pin_a", position=(0.0, width / 2, height / 2)),
                    model.add_marker(beam, "A", node="A"))
    # universal at B: pinned point, and the beam's y axis kept ⟂ global z (no spin about the beam axis)
    model.add_joint("universal", model.add_marker(model.ground, "pin_b", position=(length, width / 2, height / 2)),
                    model.add_marker(beam, "B", node="B", orientation=_ABOUT_Y))
    start = (position, width / 2, height)
    if penetration is None:
        penetration = (load + slider_mass * gravity) / stiffness
        penetration = penetration ** (1.0 / exponent) if penetration > 0 else 0.0
    lift = (0.0, 0.0, -penetration)
    carriage = model.add_rigid_body("carriage", 1e-3 * slider_mass + 1e-3, (1e-4, 1e-4, 1e-4),
                                    position=start, velocity=(speed, 0.0, 0.0))
    slider = model.add_rigid_body("slider", slider_mass, (1e-3, 1e-3, 1e-3), position=np.add(start, lift),
                                  velocity=(speed, 0.0, 0.0))
    rail = model.add_joint("prismatic", model.add_marker(model.ground, "rail", position=start, orientation=_ALONG_X),
                           model.add_marker(carriage, "carriage_x", orientation=_ALONG_X))
    rail.prescribe(velocity=speed) if speed else rail.prescribe(position=0.0)
    model.add_joint("prismatic", model.add_marker(carriage, "guide"), model.add_marker(slider, "slide", position=(
        0.0, 0.0, 0.0)))
    shoe = model.add_marker(slider, "shoe")
    if load:
        model.add_force(fm.PointForce(shoe, force=(0.0, 0.0, -load), name="load"))
    contact = model.add_force(fm.SlidingContact(shoe, beam, "top", stiffness=stiffness, exponent=exponent,
                                                damping=damping, shoe_length=shoe_length, ramp=ramp,
                                                static=static, dynamic=dynamic, name="shoe"))
    return model, beam, contact


def fryba_midspan(t, speed, length, load, ei, mass_per_length, terms=60):
    """Mid-span deflection (m, positive down) of a simply supported Euler–Bernoulli beam under a constant force
    crossing it at constant speed from x = 0 at t = 0, undamped (Frýba, Vibration of solids and structures under
    moving loads, 1972, eq. (1.25)): ``v = v0 Σ_j [sin jωt - (α/j) sin ω_j t] sin(jπ/2) / (j² (j² - α²))``,
    ``v0 = 2 F L³/(π⁴ EI)``, ``ω = πc/L``, ``ω_j = j² π² √(EI/μ)/L²``, ``α = ω/ω_1``."""
    t = np.asarray(t, dtype=float)[:, None]
    j = np.arange(1, terms + 1)[None, :]
    omega = np.pi * speed / length
    omega_j = j**2 * np.pi**2 / length**2 * np.sqrt(ei / mass_per_length)
    alpha = omega / omega_j[0, 0]
    v0 = 2.0 * load * length**3 / (np.pi**4 * ei)
    terms_ = ((np.sin(j * omega * t) - alpha / j * np.sin(omega_j * t)) * np.sin(j * np.pi / 2)
              / (j**2 * (j**2 - alpha**2)))
    return v0 * terms_.sum(axis=1)


def critical_speed(length, ei, mass_per_length):
    """``c_cr = π/L √(EI/μ)`` (m/s): the speed ratio α = c / c_cr (Frýba)."""
    return np.pi / length * np.sqrt(ei / mass_per_length)


def settle(model, t_end=0.12):
    """Static state by damped transient (heavily damped modes): ``flexmbs.simulate`` to ``t_end`` (s)."""
    res = fm.simulate(model, t_end, rtol=1e-4, atol=1e-9, rho_inf=0.5)
    if not res.success:
        raise AssertionError(res.message)
    return res
