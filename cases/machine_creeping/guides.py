"""Lateral guides of the moving platen (``platen_guides = true``): a bilateral, linear spring-damper across the
machine axis between a point of the moving platen and a line fixed in the structure's *floating frame*, with the
Coulomb friction of the ch. 4 contact law (seed 003 Fig. 4-3) along the guide.

Why the frame and not a node: guides hung on pad nodes turned the nodes' local rotations in the kHz modes into gap
motion, and the run diverged (docs/cases/machine-creeping.md, "Lateral guides"). The floating frame carries the
structure's rigid motion, so the guide's loads enter the structure's frame coordinates only (their momentum and
moment are exact; the girders' local elastic response to them is left out).

Law per guide (global forces on the platen point; the opposite force and its moment act on the frame; written once,
:func:`cases.machine_creeping.contact_laws.guide_law`, which the kernel and this class call):
``e = n · (x_p − x_o) − y0`` with ``n`` the frame's y axis, ``F_n = −(k e + c ė)`` along ``n``, friction
``−μ(|v_t|) |F_n| v_t/|v_t|`` with ``v_t`` the slip velocity in the guide's plane.
"""
from __future__ import annotations

import numpy as np

from flexmbs.model.forces import ForceElement, apply_at_marker


class LateralGuide(ForceElement):
    """Bilateral lateral guide (N/m, N s/m) between a platen point and the structure's frame (module docstring).

    Parameters
    ----------
    point : Marker on the moving platen (the guide shoe)
    frame : Marker on the structure without a node (its floating frame), identity orientation (or on ground)
    lateral_offset : m, ``y0``: the guide line's y in the frame (the point's y at zero load)
    stiffness : N/m;  damping : N s/m
    static, dynamic : friction coefficients;  stiction_velocity, dynamic_velocity : m/s (Fig. 4-3)
    """

    output_units = {"lateral_force": "N", "friction_force": "N", "deflection": "m"}
    marker_local = True  # loads depend on its two markers only (flexmbs.engine.callbacks: differenced only over its markers' bodies)

    def __init__(self, point, frame, lateral_offset: float, stiffness: float, damping: float, static: float = 0.0,
                 dynamic: float = 0.0, stiction_velocity: float = 1e-3, dynamic_velocity: float | None = None,
                 name: str = "guide"):
        self.point, self.frame = point, frame
        self.offset, self.stiffness, self.damping = float(lateral_offset), float(stiffness), float(damping)
        self.static, self.dynamic = float(static), float(dynamic)
        self.stiction_velocity = float(stiction_velocity)
        self.dynamic_velocity = dynamic_velocity
        self.name = name

    def markers(self):
        return [self.point, self.frame]

    def _state(self, ctx):
        """Marker states, arm, the force on the point and the outputs of :func:`.contact_laws.guide_law`."""
        from .contact_laws import guide_law, guide_parameters

        sp, so = ctx.marker(self.point), ctx.marker(self.frame)
        arm = np.ascontiguousarray(sp.x - so.x, dtype=float)
        v_rel = np.ascontiguousarray(sp.v - so.v - np.cross(so.w, arm), dtype=float)
        force, f_n, friction, deflection = guide_law(arm, np.ascontiguousarray(so.R[:, 1], dtype=float), v_rel,
                                                     guide_parameters(self))
        return sp, so, arm, force, deflection, f_n, friction

    def generalized_forces(self, ctx):
        sp, so, arm, force, _, _, _ = self._state(ctx)
        out = [] if self.point.on_ground else [(self.point.body, apply_at_marker(sp, force))]
        if not self.frame.on_ground:
            out.append((self.frame.body, apply_at_marker(so, -force, -np.cross(arm, force))))
        return out

    def outputs(self, ctx):
        _, _, _, _, deflection, f_n, friction = self._state(ctx)
        return {"lateral_force": f_n, "friction_force": friction, "deflection": deflection}

    def compiled_force(self, system):
        """Its kernel for the compiled step (:mod:`.contact_laws`, protocol :mod:`flexmbs.engine.force_kernels`)."""
        from .contact_laws import guide_spec

        return guide_spec(self, system)

    def potential_energy(self, ctx):
        """``k e² / 2`` (J)."""
        return 0.5 * self.stiffness * self._state(ctx)[4] ** 2


def add_guides(model, platen, structure_body, p: dict, thick: float, width: float, girder: float, z_local: float):
    """Four guides (front and back of the platen, both girders) on ``model``; returns the elements.

    ``thick``: m, the platen's length along x; ``width``, ``girder``: m, base width and girder thickness (the guide
    lines lie on the girders' mid-planes, y = ±(W − t)/2); ``z_local``: m, platen-local height of the guide shoes.
    """
    frame = model.add_marker(structure_body, "structure_frame")
    guides = []
    for i, (dx, side) in enumerate([(thick / 2 - 0.1, -1.0), (thick / 2 - 0.1, 1.0), (-thick / 2 + 0.1, -1.0),
                                    (-thick / 2 + 0.1, 1.0)]):
        y = side * (width - girder) / 2
        point = model.add_marker(platen, f"guide_{i}", position=(dx, y, z_local))
        guides.append(model.add_force(LateralGuide(
            point, frame, y, p["guide_stiffness"], p["guide_damping"], static=p["rail_static_friction"],
            dynamic=p["rail_dynamic_friction"], stiction_velocity=p["rail_stiction_velocity"],
            dynamic_velocity=p["rail_dynamic_velocity"], name=f"guide_{i}")))
    return guides


__all__ = ["LateralGuide", "add_guides"]
