"""Rigid and flexible (floating frame of reference) bodies.

Both kinds share one inertia description: the invariants I1..I9 of seed 003 eq. (2-163..2-171) (a rigid body is a
flexible body with no elastic coordinate). A body's coordinates are ``[r (3), p (4), q_f (m)]``: frame origin in
global axes, Euler parameters of the frame, elastic coordinates. Its quasi-velocities are
``u = [ṙ (global), ω' (body axes), q̇_f]`` with ``ω' = 2 G ṗ``.

Kinetic energy ``T = ½ uᵀ M̄(q) u`` with the blocks of seed 003 eq. (2-156..2-162) (``B θ̇`` there is ``ω'`` here)::

    M̄_rr = I1·1          M̄_rω = -A c̃            M̄_rq = A I3          c = I2 + I3 q_f
    M̄_ωω = J(q_f)        M̄_ωq = I4 + Σ q_j I5_j  M̄_qq = I6
    J(q_f) = I7 + Σ_j q_j (I8_j + I8_jᵀ) + Σ_jk q_j q_k I9_jk

and the quadratic-velocity vector (appendix A of seed 003 differentiated; ``w = S q̇_f``)::

    Q̄v_r = -A (ω̃ ω̃ c + 2 ω̃ I3 q̇_f)
    Q̄v_ω = -ω̃ J ω - J̇ ω - ω̃ (I4 + Σ q_j I5_j) q̇_f
    Q̄v_qj = ωᵀ (I8_j + Σ_k q_k I9_jk) ω - 2 Σ_k q̇_k ωᵀ I5_k[:, j]

Elastic and modal damping forces ``-K_ff q_f - D_ff q̇_f`` (seed 003 eq. (2-139), (2-172), (2-173)). A body whose
file has modal geometric stiffness (``reduce(..., geometric_stiffness=True)``, issue 28) adds the stress stiffening
``-(Σ_c p_c G_c + Σ_j q_j G_j) q_f`` of its inertia and interface loads (docs/theory-multibody.md §2a).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fem.errors import ModelError

from .checks import check_pose, check_rigid_body, check_vector
from .kernels import ffrf_mass_and_force as _ffrf
from .rotations import g_matrix, orientation_matrix, quaternion_from_matrix, rotation_matrix

__all__ = ["Ground", "RigidBody", "FlexibleBody", "BodyKinematics"]


@dataclass
class BodyKinematics:
    """Positions and velocities of one body at one instant (all arrays views or small copies)."""

    r: np.ndarray  # (3,) m, frame origin, global
    p: np.ndarray  # (4,) Euler parameters
    A: np.ndarray  # (3, 3) body → global
    G: np.ndarray  # (3, 4)
    qf: np.ndarray  # (m,) elastic coordinates
    rdot: np.ndarray  # (3,) m/s
    omega: np.ndarray  # (3,) rad/s, body axes
    qfdot: np.ndarray  # (m,)


_AT_REST = bytes(24)  # an angular velocity (3,) of +0.0
_UPRIGHT = np.eye(3).tobytes()  # the identity orientation


class Ground:
    """The inertial frame; markers on it are fixed in space."""

    name = "ground"
    index = -1
    n_modes = 0
    n_coordinates = 0

    def __repr__(self) -> str:
        return "Ground()"


class _InertialBody:
    """Shared part of rigid and flexible bodies: invariants, coordinates, inertia terms."""

    def __init__(self, name, position, orientation, velocity, angular_velocity):
        if not isinstance(name, str) or not name.strip():  # issue 43: None became a body named 'None'
            raise ModelError(f"a body's name must be non-empty text, got {name!r}")
        check_pose(name, position, orientation, velocity, angular_velocity)  # issue 43: finite numbers, a rotation
        self.name = str(name)
        self.index = -1  # set by Model.add_body
        self.offset = 0  # first coordinate of this body in the system vector
        self.initial_position = np.asarray(position, dtype=float).reshape(3)
        self.initial_orientation = orientation_matrix(orientation)
        self.initial_velocity = np.asarray(velocity, dtype=float).reshape(3)
        self.initial_angular_velocity = np.asarray(angular_velocity, dtype=float).reshape(3)

    # --- invariants (set by subclasses) ---------------------------------------------------------------
    def _set_invariants(self, mass, first_moment, inertia, i3, i4, i5, i6, i8, i9, stiffness, damping):
        if not mass > 0.0:
            raise ModelError(f"body {self.name!r}: mass must be positive, got {mass}")
        self.mass = float(mass)
        self.first_moment = np.asarray(first_moment, dtype=float)
        self.inertia_origin = np.asarray(inertia, dtype=float)
        self.i3, self.i4, self.i5, self.i6 = i3, i4, i5, i6
        self.i8 = i8
        self.i8_sym = i8 + np.transpose(i8, (0, 2, 1))
        # I9_jk = I9_kjᵀ by definition (I9_jk[a, b] = ∫ρ S_aj S_bk dV); made exact (the file's rounding), as the
        # inertia kernel reads only the blocks j ≤ k
        i9 = 0.5 * (i9 + np.transpose(i9, (1, 0, 3, 2)))
        self.i9 = i9
        self.modal_stiffness = np.asarray(stiffness, dtype=float)  # (m,) diagonal of K_ff
        self.modal_damping = np.asarray(damping, dtype=float)  # (m,) diagonal of D_ff
        self.n_modes = int(self.modal_stiffness.size)
        self.n_coordinates = 7 + self.n_modes
        self.n_quasi = 6 + self.n_modes
        c64 = np.ascontiguousarray
        self._ffrf_args = tuple(c64(x, dtype=float) for x in (
            self.first_moment, self.inertia_origin, i3, i4, i5, i6, i8, self.i8_sym, i9))

    @property
    def slice(self) -> slice:
        return slice(self.offset, self.offset + self.n_coordinates)

    def initial_coordinates(self) -> tuple[np.ndarray, np.ndarray]:
        """Initial coordinates and their rates ``(q_b, q̇_b)``, each (7 + m,)."""
        # placed upright (the identity) or at rest (ω all +0.0): the numbers the general formulas give there,
        # without their products (≈ 8 µs of a body's start)
        a, w = np.asarray(self.initial_orientation, dtype=float), np.asarray(self.initial_angular_velocity, dtype=float)
        p = np.array([1.0, 0.0, 0.0, 0.0]) if a.tobytes() == _UPRIGHT else quaternion_from_matrix(a)
        if w.tobytes() == _AT_REST:
            pdot = np.zeros(4)
        else:
            pdot = 0.5 * g_matrix(p.tolist()).T @ (a.T @ w)  # (G of Python floats: the same numbers, built faster)
        if not self.n_modes:  # a rigid body: no modal coordinates to append
            return np.concatenate([self.initial_position, p]), np.concatenate([self.initial_velocity, pdot])
        q = np.concatenate([self.initial_position, p, np.zeros(self.n_modes)])
        v = np.concatenate([self.initial_velocity, pdot, np.zeros(self.n_modes)])
        return q, v

    def kinematics(self, q_b: np.ndarray, v_b: np.ndarray) -> BodyKinematics:
        """Frame kinematics from this body's coordinates ``q_b`` and rates ``v_b`` (7 + m,)."""
        # A and G of the normalized parameters: then Φ, Q are exactly invariant to the length of p, consistent
        # with G p = 0 (the normalization constraint fixes the length)
        p = q_b[3:7]
        norm = np.sqrt(p @ p)
        p_unit = p / norm
        G = g_matrix(p_unit) / norm
        return BodyKinematics(
            r=q_b[0:3], p=p, A=rotation_matrix(p_unit), G=G, qf=q_b[7:], rdot=v_b[0:3], omega=2.0 * G @ v_b[3:7],
            qfdot=v_b[7:],
        )

    # --- inertia --------------------------------------------------------------------------------------
    def first_moment_deformed(self, qf: np.ndarray) -> np.ndarray:
        """``c = I2 + I3 q_f`` (3,), kg m, in body axes."""
        return self.first_moment + self.i3 @ qf if self.n_modes else self.first_moment

    def mass_and_quadratic_velocity(self, kin: BodyKinematics) -> tuple[np.ndarray, np.ndarray]:
        """Mass matrix ``M̄`` (6+m, 6+m) and quadratic-velocity vector ``Q̄v`` (6+m,) in quasi-velocities."""
        n = 6 + self.n_modes
        mbar = np.empty((n, n))
        qv = np.empty(n)
        first_moment, inertia, i3, i4, i5, i6, i8, i8_sym, i9 = self._ffrf_args
        _ffrf(kin.A, kin.omega, np.ascontiguousarray(kin.qf, dtype=float), np.ascontiguousarray(kin.qfdot, dtype=float),
              self.mass, first_moment, inertia, i3, i4, i5, i6, i8, i8_sym, i9, mbar, qv)
        return mbar, qv

    def kinetic_energy(self, kin: BodyKinematics) -> float:
        mbar, _ = self.mass_and_quadratic_velocity(kin)
        u = np.concatenate([kin.rdot, kin.omega, kin.qfdot])
        return 0.5 * float(u @ mbar @ u)

    def strain_energy(self, kin: BodyKinematics) -> float:
        return 0.5 * float(np.sum(self.modal_stiffness * kin.qf**2))


class RigidBody(_InertialBody):
    """A rigid body.

    Parameters
    ----------
    name : str
    mass : float, kg
    inertia : (3, 3) or (3,) float, kg m²
        Inertia tensor about the centre of mass in body axes (a (3,) array is the diagonal).
    centre_of_mass : (3,) float, m
        Centre of mass in the body frame (the body frame is where markers are placed from).
    position : (3,) float, m
        Initial (approximate) global position of the body frame origin.
    orientation : (3, 3) matrix, (4,) quaternion or None
        Initial orientation body → global.
    velocity : (3,) float, m/s
        Initial velocity of the body frame origin.
    angular_velocity : (3,) float, rad/s, global axes
    """

    def __init__(self, name, mass, inertia, centre_of_mass=(0.0, 0.0, 0.0), position=(0.0, 0.0, 0.0),
                 orientation=None, velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0)):
        super().__init__(name, position, orientation, velocity, angular_velocity)
        try:
            j_c = np.asarray(inertia, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(f"body {name!r}: inertia must be numbers in kg m², a 3x3 tensor or its diagonal, got "
                             f"{inertia!r}") from None
        if j_c.shape == (3,):
            j_c = np.diag(j_c)
        if j_c.shape != (3, 3):
            raise ModelError(f"body {name!r}: inertia must be a 3x3 tensor or its diagonal, got shape {j_c.shape}")
        check_rigid_body(name, mass, j_c)  # issue 43
        c = check_vector(f"body {name!r}", "centre_of_mass", centre_of_mass, "m")
        inertia_origin = j_c + mass * (c @ c * np.eye(3) - np.outer(c, c))  # parallel-axis theorem
        z3m = np.zeros((3, 0))
        self._set_invariants(mass, mass * c, inertia_origin, z3m, z3m, np.zeros((0, 3, 0)), np.zeros((0, 0)),
                             np.zeros((0, 3, 3)), np.zeros((0, 0, 3, 3)), np.zeros(0), np.zeros(0))

    def __repr__(self) -> str:
        return f"RigidBody({self.name!r}, mass={self.mass:g} kg)"


class FlexibleBody(_InertialBody):
    """A floating-frame flexible body from a reduced :class:`reduction.flexbody.FlexBody` (seed 003 §2.1.2.2/3).

    Parameters
    ----------
    name : str
    flexbody : FlexBody or str
        The reduced body or the path of a ``*.flex.h5`` file.
    position, orientation, velocity, angular_velocity :
        Initial pose and velocity of the body frame (the FE model's coordinate system), see :class:`RigidBody`.
    modes : sequence of int or None
        Indices of the elastic modes to keep (``None`` keeps all); dropping a mode disables it.
    damping_ratio : float or (m,) array or None
        Modal damping ratios overriding the FlexBody's (seed 003 eq. (2-173)).
    """

    def __init__(self, name, flexbody, position=(0.0, 0.0, 0.0), orientation=None, velocity=(0.0, 0.0, 0.0),
                 angular_velocity=(0.0, 0.0, 0.0), modes=None, damping_ratio=None):
        super().__init__(name, position, orientation, velocity, angular_velocity)
        if isinstance(flexbody, str) or hasattr(flexbody, "__fspath__"):
            from reduction.io import read_flexbody  # the reduction package's reader (validates the file)

            flexbody = read_flexbody(flexbody)
        if not hasattr(flexbody, "invariants"):  # issue 43: None raised an AttributeError
            raise ModelError(f"body {name!r}: flexbody must be a reduced body (reduction.FlexBody) or the path of a "
                             f"*.flex.h5 file, got {type(flexbody).__name__}")
        self.flexbody = flexbody
        n_all = flexbody.n_modes
        try:  # issue 43: modes="all" raised numpy's ValueError
            sel = np.arange(n_all) if modes is None else np.asarray(modes, dtype=int).reshape(-1)
        except (TypeError, ValueError):
            raise ModelError(f"body {name!r}: modes must be mode indices (whole numbers in 0..{n_all - 1}) or None "
                             f"for all, got {modes!r}") from None
        if sel.size and (sel.min() < 0 or sel.max() >= n_all):
            raise ModelError(f"body {name!r}: mode indices must be in 0..{n_all - 1}, got {list(sel)}")
        if np.unique(sel).size != sel.size:
            raise ModelError(f"body {name!r}: a mode index is given twice in modes={list(sel)}; list each mode once")
        self.mode_indices = sel
        inv = flexbody.invariants
        omega = 2.0 * np.pi * np.asarray(flexbody.frequencies_hz, dtype=float)[sel]
        try:  # issue 43: text raised numpy's ValueError
            zeta = np.asarray(flexbody.damping_ratios, dtype=float)[sel] if damping_ratio is None else (
                np.broadcast_to(np.asarray(damping_ratio, dtype=float), sel.shape))
        except (TypeError, ValueError):
            raise ModelError(f"body {name!r}: damping_ratio must be a number in [0, 1) (0.02 = 2 %) or one per mode, "
                             f"got {damping_ratio!r}") from None
        if damping_ratio is not None and not np.all((zeta >= 0.0) & (zeta < 1.0)):  # issue 43: -1, nan ran
            raise ModelError(f"body {name!r}: damping_ratio must be in [0, 1) (0.02 = 2 %), got {damping_ratio!r}")
        self.frequencies_hz = omega / (2.0 * np.pi)
        self.node_positions = np.asarray(flexbody.positions, dtype=float)
        self.node_translations = np.ascontiguousarray(np.asarray(flexbody.translations)[:, :, sel])
        self.node_rotations = np.ascontiguousarray(np.asarray(flexbody.rotations)[:, :, sel])
        self._set_invariants(
            inv.mass, inv.first_moment, inv.inertia, inv.first_moment_modes[:, sel], inv.rotation_modes[:, sel],
            inv.rotation_modes_q[np.ix_(sel, [0, 1, 2], sel)], inv.modal_mass[np.ix_(sel, sel)], inv.inertia_q[sel],
            inv.inertia_qq[np.ix_(sel, sel)], omega**2 * np.diag(inv.modal_mass)[sel],
            2.0 * zeta * omega * np.diag(inv.modal_mass)[sel],
        )
        self._set_geometric(getattr(flexbody, "geometric_stiffness", None), sel)

    # --- geometric stiffening (issue 28, docs/theory-multibody.md) -------------------------------------
    def _set_geometric(self, gs, sel) -> None:
        """Keep the modal geometric stiffness of the file (selected modes), or mark the body as without it."""
        self.has_geometric_stiffness = gs is not None
        if gs is None:
            return
        self._kg_inertia = np.ascontiguousarray(np.asarray(gs.inertia, dtype=float)[:, sel][:, :, sel])
        self._kg_deformation = np.ascontiguousarray(np.asarray(gs.deformation, dtype=float)[np.ix_(sel, sel, sel)])
        # G_j = Σ_r U[j, r] H_r: the interface-load stress states span at most the n_b constraint modes, so the
        # rank r of G (m, m·m) is ≤ n_b; contracting with q costs r m² instead of m³ (the same numbers to 1e-12)
        m = self._kg_deformation.shape[0]
        u, sv, vt = np.linalg.svd(self._kg_deformation.reshape(m, m * m), full_matrices=False)
        rank = int(np.sum(sv > 1e-12 * sv[0])) if sv.size and sv[0] > 0 else 0
        self._kg_weights = np.ascontiguousarray(u[:, :rank] * sv[:rank])  # (m, r)
        self._kg_shapes = np.ascontiguousarray(vt[:rank]).reshape(rank, m, m)  # (r, m, m): H_r

    @classmethod
    def from_file(cls, name: str, path, **kwargs) -> "FlexibleBody":
        """A flexible body from a ``*.flex.h5`` file written by ``flexmbs reduce`` (keywords as the constructor)."""
        return cls(name, str(path), **kwargs)

    def node(self, node: int | str) -> int:
        """Node index (into the FlexBody arrays) of an interface name, an averaging node's name
        (:meth:`add_averaging_node`) or a mesh node id."""
        if isinstance(node, str):
            averaging = getattr(self, "_averaging", {})
            if node in averaging:
                return averaging[node]
            return self.flexbody.interface(node).node
        return self.flexbody.node_index(int(node))

    def add_averaging_node(self, name: str, nodes, weights=None) -> int:
        """A node that moves with the weighted mean of mesh nodes, for markers anywhere on the body (an averaging
        marker: what an RBE3 does, without changing the reduction basis; Exudyn's ``MarkerSuperElementRigid``).

        The node sits at the weighted centroid ``c = Σ wᵢ xᵢ`` (``w`` normalized to 1); its translation is the
        weighted mean of the nodes' modal translations and its rotation the least-squares rigid rotation of them,
        ``θ = J⁻¹ Σ wᵢ dᵢ × uᵢ`` with ``dᵢ = xᵢ − c`` and ``J = Σ wᵢ (|dᵢ|² I − dᵢ dᵢᵀ)`` (exact for a rigid motion
        of the nodes). Use its name as ``node=`` of :meth:`flexmbs.Model.add_marker`.

        Parameters
        ----------
        name : str
        nodes : str or (k,) int
            A selector (``box:...``, ``sphere:...``, ``cylinder:...``, ``nodes:...``) over the body's nodes (body
            frame, m) or mesh node ids; at least 3 nodes not on one line.
        weights : (k,) float, optional
            Relative weights (default equal: Exudyn's plain average).

        Returns
        -------
        int : the node index.
        """
        from fem.selectors import select_nodes

        fb = self.flexbody
        if not isinstance(name, str) or not name:
            raise ModelError(f"body {self.name!r}: an averaging node needs a name")
        averaging = self.__dict__.setdefault("_averaging", {})
        if name in averaging or name in [i.name for i in fb.interfaces]:
            raise ModelError(f"body {self.name!r}: node name {name!r} is taken (interfaces and averaging nodes)")
        n_mesh = len(fb.node_ids)
        points = self.node_positions[:n_mesh]
        if isinstance(nodes, str):
            idx = select_nodes(nodes, points, np.asarray(fb.node_ids), {})
        else:
            idx = np.array([fb.node_index(int(i)) for i in np.asarray(nodes).reshape(-1)], dtype=np.int64)
        w = np.ones(idx.size) if weights is None else np.asarray(weights, dtype=float).reshape(-1)
        if w.shape != idx.shape or np.any(w < 0) or not w.sum() > 0:
            raise ModelError(f"body {self.name!r}, averaging node {name!r}: {idx.size} nodes but weights of shape "
                             f"{w.shape} (non-negative, not all zero)")
        w = w / w.sum()
        centre = w @ points[idx]
        d = points[idx] - centre
        inertia = np.einsum("i,ij,ij->", w, d, d) * np.eye(3) - np.einsum("i,ij,ik->jk", w, d, d)
        if idx.size < 3 or np.linalg.cond(inertia) > 1e10:
            raise ModelError(f"body {self.name!r}, averaging node {name!r}: {idx.size} node(s) on (nearly) one line "
                             "cannot carry a rotation; select at least 3 nodes that span an area")
        shapes = self.node_translations[idx]  # (k, 3, m)
        translation = np.einsum("i,ijm->jm", w, shapes)
        moment = np.einsum("i,ijm->jm", w, np.cross(d[:, :, None], shapes, axisa=1, axisb=1, axisc=1))
        rotation = np.linalg.solve(inertia, moment)
        self.node_positions = np.vstack([self.node_positions, centre])
        self.node_translations = np.ascontiguousarray(np.concatenate([self.node_translations, translation[None]]))
        self.node_rotations = np.ascontiguousarray(np.concatenate([self.node_rotations, rotation[None]]))
        averaging[name] = self.node_positions.shape[0] - 1
        return averaging[name]

    def path(self, name: str) -> np.ndarray:
        """Node indices of a sliding path named in the FlexBody file (``flexmbs reduce --path``)."""
        paths = getattr(self.flexbody, "paths", {}) or {}
        if name not in paths:
            known = ", ".join(paths) or "none"
            raise ModelError(f"flexible body {self.name!r} has no path {name!r} (paths: {known}); name one with "
                             "flexmbs reduce --path NAME=SELECTOR")
        return np.asarray(paths[name].nodes, dtype=np.int64)

    def __repr__(self) -> str:
        return f"FlexibleBody({self.name!r}, mass={self.mass:g} kg, modes={self.n_modes})"
