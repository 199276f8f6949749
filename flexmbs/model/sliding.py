"""Sliding contact of a rigid slider along a path of nodes of a flexible body (seed 003 §5.1.1, eq. (5-1), Fig. 5-1;
docs/sliding-contact.md).

A moving point load on a reduced body cannot be a joint on a node (the node is fixed a priori). The thesis' macro,
here an element vectorized over the path nodes, computes for **every node p of the sliding path** a penalty force
from the node's penetration into the slider's contact shoe, weighted by a smooth window of its position along it::

    DY_p = n · (x_p - x_s)        penetration of node p through the shoe face (n: slider marker z axis)
    DZ_p = t · (x_p - x_s)        position of node p along the shoe (t: slider marker x axis)
    VY_p = n · (v_p - v_s,p)      penetration rate (v_s,p: slider material point at the node)
    VZ_p = t · (v_s,p - v_p)      sliding velocity of the slider relative to the node

    F_p = w(DZ_p) · (K DY_p^E + step(DY_p, 0, 0, d_depth, 1) D VY_p)   for DY_p > 0, else 0   # eq. (5-1), (4-1)
    w(DZ) = STEP(DZ, d1, 0, d3, 1) · STEP(DZ, d4, 1, d2, 0)            d1 < d3 ≤ d4 < d2    # Fig. 5-1
    f_p = F_p n - μ(VZ_p) F_p t                                       (on the slider)      # eq. (5-2), Fig. 4-3

``STEP`` is the cubic ``h0 + (h1 - h0) Δ² (3 - 2Δ)`` (C¹). ``f_p`` acts on the slider at the contact point
``x_p - DY_p n`` on the shoe face and ``-f_p`` on node ``p`` (on the modes ``S_pᵀ Aᵀ f``, eq. (2-145)). Unlike the
macro (global axes, rotations neglected) the slider's own axes are used and the reactions include the moment of each
nodal force about the slider marker.
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError

from .contact_laws import friction_coefficients_many, penalty_many, window_many
from .forces import ForceElement

__all__ = ["SlidingContact", "window", "window_derivative", "friction_coefficients"]

# m: path nodes farther than this outside the window (undeformed, along the shoe) are not evaluated (the elastic
# displacement of a node along the path is far below it)
WINDOW_MARGIN = 0.05


def window(dz, d1: float, d3: float, d4: float, d2: float) -> np.ndarray:
    """Weight ``w(DZ)`` of Fig. 5-1 (seed 003): 0 outside (d1, d2), 1 on [d3, d4], smooth-step ramps between
    (:func:`flexmbs.model.contact_laws.window`)."""
    return window_many(np.atleast_1d(np.asarray(dz, dtype=float)).ravel(), d1, d3, d4, d2)[0].reshape(np.shape(dz))


def window_derivative(dz, d1: float, d3: float, d4: float, d2: float) -> np.ndarray:
    """``dw/dDZ`` (1/m), continuous (the window is C¹)."""
    return window_many(np.atleast_1d(np.asarray(dz, dtype=float)).ravel(), d1, d3, d4, d2)[1].reshape(np.shape(dz))


def friction_coefficients(velocity, static: float, dynamic: float, stiction_velocity: float,
                          dynamic_velocity: float) -> tuple[np.ndarray, np.ndarray]:
    """Signed friction coefficient ``μ(v)`` of seed 003 Fig. 4-3 and ``dμ/dv`` (s/m) at each velocity: the law
    :func:`flexmbs.model.contact_laws.sliding_friction_coefficient`."""
    v = np.asarray(velocity, dtype=float)
    mu, dmu = friction_coefficients_many(np.atleast_1d(v).ravel(), static, dynamic, stiction_velocity,
                                         dynamic_velocity)
    return mu.reshape(v.shape), dmu.reshape(v.shape)


class SlidingContact(ForceElement):
    """A rigid slider with a contact shoe sliding along a path of nodes of a flexible body.

    Parameters
    ----------
    slider : Marker
        On a rigid body (or the ground: a fixed shoe under a moving flexible body). Origin on the shoe face at
        the middle of the shoe; x axis along the path (sliding direction), z axis the shoe's outward normal,
        pointing from the shoe face into the slider (a node above the face penetrates).
    body : FlexibleBody
    path : str or sequence of int
        A path named in the FlexBody file (``flexmbs reduce --path NAME=SEL``) or node indices of the body.
    stiffness : float, N/m^e;  exponent : float;  damping : float, N s/m reached at ``damping_depth`` (m)
        The penalty law of eq. (5-1)/(4-1), per node.
    shoe_length : float, m
        Length of the plateau [d3, d4] = [-L/2, L/2] where a node carries its full force.
    ramp : float, m, optional
        Length of each STEP ramp (default: the median node spacing of the path, which makes the summed weights
        independent of the slider position).
    window : (d1, d3, d4, d2), m, optional
        The window of Fig. 5-1 given explicitly (instead of ``shoe_length`` / ``ramp``).
    static, dynamic : float
        Friction coefficients of Fig. 4-3 (``μ_s``, ``μ_d``); 0 disables friction.
    stiction_velocity, dynamic_velocity : float, m/s
        ``v_s`` and ``v_d`` of Fig. 4-3 (default ``v_d = 2 v_s``).
    node_outputs : bool
        Record the force of every path node (``node_force_<k>``, N) in the results.
    """

    output_units = {"normal_force": "N", "friction_force": "N", "force_centroid": "m", "max_penetration": "m",
                    "nodes_in_contact": "1"}

    def __init__(self, slider, body, path, stiffness: float, exponent: float = 1.2, damping: float = 0.0,
                 damping_depth: float = 1e-4, shoe_length: float | None = None, ramp: float | None = None,
                 window: tuple | None = None, static: float = 0.0, dynamic: float = 0.0,
                 stiction_velocity: float = 1e-3, dynamic_velocity: float | None = None,
                 node_outputs: bool = False, name: str | None = None):
        self.name = name or f"sliding({slider.name},{body.name})"
        if not hasattr(body, "node_translations"):
            raise ModelError(f"sliding contact {self.name!r}: the path must lie on a flexible body, not on "
                             f"{body.name!r}")
        if not slider.on_ground and (slider.node is not None or slider.body.n_modes):
            raise ModelError(f"sliding contact {self.name!r}: the slider marker must be on a rigid body or the ground")
        self.slider, self.body = slider, body
        self.path_name = path if isinstance(path, str) else "nodes"
        self.nodes = body.path(path) if isinstance(path, str) else np.unique(np.asarray(path, dtype=np.int64))
        if self.nodes.size < 2:
            raise ModelError(f"sliding contact {self.name!r}: path {self.path_name!r} has {self.nodes.size} node(s); "
                             "a sliding path needs at least 2 nodes")
        extent, spacing = _path_extent(body.node_positions[self.nodes])
        self.window_bounds = self._window(window, shoe_length, ramp, spacing, extent)
        for value, what in ((stiffness, "stiffness"), (exponent, "exponent"), (stiction_velocity, "stiction_velocity")):
            if not value > 0.0:
                raise ModelError(f"sliding contact {self.name!r}: {what} must be positive, got {value}")
        self.stiffness, self.exponent = float(stiffness), float(exponent)
        self.damping, self.damping_depth = float(damping), float(damping_depth)
        self.static, self.dynamic = float(static), float(dynamic)
        self.stiction_velocity = float(stiction_velocity)
        self.dynamic_velocity = 2.0 * self.stiction_velocity if dynamic_velocity is None else float(dynamic_velocity)
        if not self.dynamic_velocity > self.stiction_velocity:
            raise ModelError(f"sliding contact {self.name!r}: dynamic_velocity must exceed stiction_velocity")
        self.local = body.node_positions[self.nodes]  # (k, 3) body frame
        self.shapes = np.ascontiguousarray(body.node_translations[self.nodes])  # (k, 3, m)
        self.node_outputs = bool(node_outputs)
        if self.node_outputs:
            self.output_units = dict(self.output_units)
            self.output_units.update({f"node_force_{k:03d}": "N" for k in range(self.nodes.size)})

    def _window(self, window, shoe_length, ramp, spacing, extent):
        if window is not None:
            d1, d3, d4, d2 = (float(v) for v in window)
        else:
            if shoe_length is None or not shoe_length >= 0.0:
                raise ModelError(f"sliding contact {self.name!r}: give shoe_length >= 0 (m) or window=(d1, d3, d4, d2)")
            ramp = spacing if ramp is None else float(ramp)
            if not ramp > 0.0:
                raise ModelError(f"sliding contact {self.name!r}: ramp must be positive (m), got {ramp}")
            d3, d4 = -0.5 * float(shoe_length), 0.5 * float(shoe_length)
            d1, d2 = d3 - ramp, d4 + ramp
        for holds, need, got in ((d1 < d3, "d1 < d3", f"d1 = {d1:g} m >= d3 = {d3:g} m"),
                                 (d3 <= d4, "d3 <= d4", f"d3 = {d3:g}, d4 = {d4:g} m"),
                                 (d4 < d2, "d4 < d2", f"d4 = {d4:g} m >= d2 = {d2:g} m")):
            if not holds:
                raise ModelError(f"sliding contact {self.name!r}: window needs {need}, got {got}")
        if d4 - d3 > extent:
            raise ModelError(f"sliding contact {self.name!r}: shoe of {d4 - d3:g} m is longer than path "
                             f"{self.path_name!r} ({extent:g} m); shorten the shoe or select a longer path")
        return d1, d3, d4, d2

    def markers(self):
        return [self.slider]

    # --- kinematics and forces ---------------------------------------------------------------------------
    def _near(self, kb, ss, t_axis) -> np.ndarray:
        """Indices of the path nodes whose undeformed position lies within the window (plus a margin of
        ``WINDOW_MARGIN``): only these can carry force, the others are skipped (their weight is 0)."""
        along = (kb.r + self.local @ kb.A.T - ss.x) @ t_axis
        d1, _, _, d2 = self.window_bounds
        return np.flatnonzero((along > d1 - WINDOW_MARGIN) & (along < d2 + WINDOW_MARGIN))

    def _evaluate(self, ctx, all_nodes: bool = False):
        """Everything the forces and outputs need at one instant (vectorized over the path nodes near
        the shoe, ``idx``; all nodes with ``all_nodes``)."""
        kb = ctx.kin[self.body.index]
        ss = ctx.marker(self.slider)
        n_axis, t_axis = ss.R[:, 2], ss.R[:, 0]
        idx = np.arange(self.nodes.size) if all_nodes else self._near(kb, ss, t_axis)
        shapes = self.shapes[idx]
        u = self.local[idx] + shapes @ kb.qf  # (k, 3) deformed node positions, body frame (eq. 2-145)
        au = u @ kb.A.T
        x = kb.r + au
        w_frame = kb.A @ kb.omega
        v = kb.rdot + np.cross(w_frame, au) + (shapes @ kb.qfdot) @ kb.A.T
        rel = x - ss.x
        dy, dz = rel @ n_axis, rel @ t_axis
        v_slider = ss.v + np.cross(ss.w, rel)  # slider material point at the node
        vy, vz = (v - v_slider) @ n_axis, (v_slider - v) @ t_axis
        d1, d3, d4, d2 = self.window_bounds
        w = window_many(dz, d1, d3, d4, d2)[0]
        p = penalty_many(dy, vy, self.stiffness, self.exponent, self.damping, self.damping_depth)[0]
        # eq. (5-1), (4-1): never pulling (the law is 0 where it would); the normal force per node, N
        force = w * np.where(w > 0.0, p, 0.0)
        mu = (friction_coefficients(vz, self.static, self.dynamic, self.stiction_velocity, self.dynamic_velocity)[0]
              if self.static or self.dynamic else np.zeros_like(vz))
        f_slider = force[:, None] * n_axis - (mu * force)[:, None] * t_axis  # (k, 3) on the slider
        return dict(kb=kb, n=n_axis, u=u, x=x, dy=dy, dz=dz, w=w, force=force, mu=mu, f=f_slider, shapes=shapes)

    def generalized_forces(self, ctx):
        e = self._evaluate(ctx)
        if not np.any(e["force"]):
            return []
        kb, f = e["kb"], e["f"]
        f_body = f @ kb.A  # (k, 3): Aᵀ f, body axes
        q_body = np.empty(self.body.n_quasi)
        q_body[0:3] = -f.sum(axis=0)
        q_body[3:6] = -np.cross(e["u"], f_body).sum(axis=0)
        q_body[6:] = -np.einsum("kam,ka->m", e["shapes"], f_body)
        out = [(self.body, q_body)]
        if not self.slider.on_ground:
            ks = ctx.kin[self.slider.body.index]
            arm = (e["x"] - e["dy"][:, None] * e["n"] - ks.r) @ ks.A  # contact points, slider body axes
            q_slider = np.zeros(self.slider.body.n_quasi)
            q_slider[0:3] = f.sum(axis=0)
            q_slider[3:6] = np.cross(arm, f @ ks.A).sum(axis=0)
            out.append((self.slider.body, q_slider))
        return out

    # --- outputs ---------------------------------------------------------------------------------------
    def node_forces(self, ctx) -> dict:
        """Per path node: normal force (N), friction force along the path (N, on the slider), penetration (m),
        position along the shoe (m) and window weight, each (k,)."""
        e = self._evaluate(ctx, all_nodes=True)
        return {"normal": e["force"], "friction": -e["mu"] * e["force"], "penetration": e["dy"],
                "position": e["dz"], "weight": e["w"]}

    def outputs(self, ctx):
        e = self._evaluate(ctx, all_nodes=True)
        force = e["force"]
        total = float(force.sum())
        out = {"normal_force": total, "friction_force": float(-(e["mu"] * force).sum()),
               "force_centroid": float((force * e["dz"]).sum() / total) if total > 0.0 else 0.0,
               "max_penetration": float(e["dy"].max()), "nodes_in_contact": float(np.count_nonzero(force))}
        if self.node_outputs:
            out.update({f"node_force_{k:03d}": float(value) for k, value in enumerate(force)})
        return out

    def potential_energy(self, ctx):
        """Weighted penalty energy ``Σ w k DY^(e+1)/(e+1)`` (J) stored in the contact springs."""
        e = self._evaluate(ctx, all_nodes=True)
        pen = np.maximum(e["dy"], 0.0)
        return float(np.sum(e["w"] * self.stiffness * pen ** (self.exponent + 1.0)) / (self.exponent + 1.0))


def _path_extent(points: np.ndarray) -> tuple[float, float]:
    """Length of a path of nodes along its principal direction (m) and its median node spacing (m)."""
    centred = points - points.mean(axis=0)
    direction = np.linalg.svd(centred, full_matrices=False)[2][0]
    along = np.sort(centred @ direction)
    gaps = np.diff(along)
    gaps = gaps[gaps > 1e-9 * max(1.0, float(np.ptp(along)))]
    return float(np.ptp(along)), float(np.median(gaps)) if gaps.size else float(np.ptp(along))
