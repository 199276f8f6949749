"""Signals derived from the recorded states on request: marker velocities and accelerations, body accelerations,
body-local quantities and Tait–Bryan angles (issue 48: what a user of Exudyn's sensors expects).

They are asked for by name like every recorded signal (``res["marker/tip/acceleration"]``) and computed once from
the raw states ``(t, q, q̇, z)`` of the samples and the model's system (the in-memory results of
:func:`flexmbs.simulate`; the results room does not import the engine: it calls the system it was given):

* ``marker/M/velocity`` (m/s), ``marker/M/angular_velocity`` (rad/s), global: the marker state of the context;
* ``body/B/acceleration`` (m/s², frame origin) and ``body/B/angular_acceleration`` (rad/s²), global: from the
  consistent accelerations ``q̈`` of the acceleration-level equations ``[M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; γ]``
  (:func:`flexmbs.engine.initial.initial_accelerations`, handed over by the engine as ``accelerations``),
  ``α = 2 A G(p) p̈`` (``Ġ ṗ = 0``);
* ``marker/M/acceleration`` (m/s²), global: the derivative of the marker velocity along the motion,
  ``d/ds v_M(q + s q̇, q̇ + s q̈)`` by a central difference (step ``1e-4`` of the motion's time scale; truncation
  ~1e-8 relative), valid for markers on rigid and flexible bodies alike;
* ``body/B/local_velocity``, ``body/B/local_angular_velocity``, ``body/B/local_acceleration``: the same in the
  body's axes (``Aᵀ x``);
* ``body/B/tait_bryan`` (rad): angles ``(φx, φy, φz)`` with ``A = R_x(φx) R_y(φy) R_z(φz)`` (Exudyn's
  ``RotationMatrix2RotXYZ``), ``φy ∈ [−π/2, π/2]``.
"""
from __future__ import annotations

import numpy as np

from fem.errors import FlexmbsError

__all__ = ["DERIVED", "derive", "tait_bryan_xyz"]

XYZ = ["x", "y", "z"]
# signal kind -> (unit, components)
DERIVED = {
    ("marker", "velocity"): ("m/s", XYZ), ("marker", "angular_velocity"): ("rad/s", XYZ),
    ("marker", "acceleration"): ("m/s^2", XYZ),
    ("body", "acceleration"): ("m/s^2", XYZ), ("body", "angular_acceleration"): ("rad/s^2", XYZ),
    ("body", "local_velocity"): ("m/s", XYZ), ("body", "local_angular_velocity"): ("rad/s", XYZ),
    ("body", "local_acceleration"): ("m/s^2", XYZ), ("body", "tait_bryan"): ("rad", ["phi_x", "phi_y", "phi_z"]),
}


def tait_bryan_xyz(matrix: np.ndarray) -> np.ndarray:
    """Angles ``(φx, φy, φz)`` (rad) of ``A = R_x(φx) R_y(φy) R_z(φz)``; ``(..., 3, 3)`` -> ``(..., 3)``."""
    a = np.asarray(matrix, dtype=float)
    phi_y = np.arcsin(np.clip(a[..., 0, 2], -1.0, 1.0))
    phi_x = np.arctan2(-a[..., 1, 2], a[..., 2, 2])
    phi_z = np.arctan2(-a[..., 0, 1], a[..., 0, 0])
    return np.stack([phi_x, phi_y, phi_z], axis=-1)


def parse(name: str) -> tuple[str, str, str] | None:
    """``(room, item, quantity)`` of a derived signal name, or None."""
    parts = name.split("/")
    if len(parts) == 3 and (parts[0], parts[2]) in DERIVED:
        return parts[0], parts[1], parts[2]
    return None


def derive(system, time: np.ndarray, states: dict, name: str, accelerations=None) -> tuple[np.ndarray, str, list]:
    """The derived signal ``name`` (n, 3), its unit and components; FlexmbsError naming what is available.

    ``accelerations(q, q̇, z, t) -> q̈`` (the engine's consistent accelerations) is needed for accelerations."""
    from flexmbs.model.rotations import g_matrix, rotation_matrix

    room, item, quantity = parse(name)
    unit, comps = DERIVED[(room, quantity)]
    items = system.model.markers if room == "marker" else system.bodies
    found = [x for x in items if x.name == item]
    if not found:
        plural = "markers" if room == "marker" else "bodies"
        raise FlexmbsError(f"no {room} {item!r} for {name!r}; {plural}: {', '.join(x.name for x in items) or 'none'}")
    marker, body = (found[0], None) if room == "marker" else (None, found[0])
    q_all, v_all = np.asarray(states["q"]), np.asarray(states["v"])
    z_all = np.asarray(states["z"]) if "z" in states else np.zeros((len(time), 0))
    out = np.zeros((len(time), 3))
    needs_qdd = quantity in ("acceleration", "angular_acceleration", "local_acceleration")
    for k, t in enumerate(np.asarray(time, dtype=float)):
        q, v, z = q_all[k], v_all[k], z_all[k]
        qdd = accelerations(q, v, z, t) if needs_qdd else None
        if marker is not None:
            if quantity == "acceleration":
                out[k] = _marker_acceleration(system, marker, q, v, qdd, t)
            else:
                state = system.context(q, v, t).marker(marker)
                out[k] = state.v if quantity == "velocity" else state.w
            continue
        o = body.offset
        p, pd = q[o + 3:o + 7], v[o + 3:o + 7]
        a = rotation_matrix(p / np.linalg.norm(p))
        if quantity == "tait_bryan":
            out[k] = tait_bryan_xyz(a)
        elif quantity == "acceleration":
            out[k] = qdd[o:o + 3]
        elif quantity == "angular_acceleration":
            out[k] = a @ (2.0 * g_matrix(p) @ qdd[o + 3:o + 7])
        elif quantity == "local_velocity":
            out[k] = a.T @ v[o:o + 3]
        elif quantity == "local_angular_velocity":
            out[k] = 2.0 * g_matrix(p) @ pd
        elif quantity == "local_acceleration":
            out[k] = a.T @ qdd[o:o + 3]
    return out, unit, comps


def _marker_acceleration(system, marker, q, v, qdd, t) -> np.ndarray:
    """``d/ds v_M`` along ``(q̇, q̈)`` by a central difference over ``±s``, ``s = 1e-4 / rate`` (s)."""
    rate = max(float(np.max(np.abs(v), initial=0.0)), float(np.max(np.abs(qdd), initial=0.0)) ** 0.5, 1.0)
    s = 1e-4 / rate
    plus = system.context(q + s * v + 0.5 * s * s * qdd, v + s * qdd, t + s).marker(marker).v
    minus = system.context(q - s * v + 0.5 * s * s * qdd, v - s * qdd, t - s).marker(marker).v
    return (plus - minus) / (2.0 * s)
