"""Assembly of the model equations: the index-3 DAE of the whole model (seed 002 eq. (9..13))::

    M(q) q̈ + Φ_qᵀ λ = Q(q, q̇, z, t) + Q_v(q, q̇)        (n_q equations)
    Φ(q, t) = 0                                         (n_c equations)
    ż = g(q, q̇, z, t)                                   (n_z equations, state elements)

``q`` stacks ``[r, p, q_f]`` of every body. Constraint rows: one Euler-parameter normalization per body
(``½(pᵀp - 1)``), then each joint's rows. Per body, quasi-coordinate quantities ``(δr, δπ', δq_f)`` are mapped to the
coordinates with ``L = diag(1, 2G, 1)``: ``M = Lᵀ M̄ L``, ``Q = Lᵀ Q̄``, ``Φ_q = Φ̄ L``.
"""
from __future__ import annotations

import warnings
import weakref
from itertools import accumulate

import numpy as np

from fem.errors import ModelError
from flexmbs_jit import njit

from flexmbs.model.joints import Planar
from flexmbs.model import kernels as _k
from flexmbs.model.bodies import BodyKinematics
from flexmbs.model.markers import Marker, MarkerState
from flexmbs.model.rotations import cross

from .force_elements import driver_rows, driver_table
from .constraint_kernels import CompiledConstraints, scalar_rows
from .redundancy import RedundantConstraintWarning, independent_rows, minimum_norm_multipliers, redundancy_report

__all__ = ["System", "Context"]


class Context:
    """Everything evaluated at one ``(t, q, q̇)``: body kinematics and (lazily) marker states."""

    __slots__ = ("t", "q", "v", "z", "_kin", "system", "lam", "_markers", "_arrays", "joint_rows", "constraint_blocks",
                 "A", "G", "omega", "multipliers_read", "full_jacobian", "_full_lam")

    def __init__(self, system, q, v, t, lam=None, found=None):
        self.system, self.q, self.v, self.t, self.lam = system, q, v, t, lam
        self.z = None  # element states (force elements with a state read them; set by the callbacks)
        if found is None:
            # all bodies' A, G, ω' in one compiled call (same formulas as _InertialBody.kinematics)
            n_b = len(system.bodies)
            self.A, self.G, self.omega = np.empty((n_b, 3, 3)), np.empty((n_b, 3, 4)), np.empty((n_b, 3))
            _k.body_kinematics(np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float),
                               system.body_offsets, self.A, self.G, self.omega)
            self._arrays = None
        else:  # the same (q, q̇) evaluated before: its (A, G, ω', marker arrays), read only
            self.A, self.G, self.omega, self._arrays = found
        self._kin = None
        self._markers = [None] * len(system.markers)
        self.joint_rows = {}  # joint -> (Φ̄_i, Φ̄_j) quasi-coordinate Jacobians, filled by System.constraints
        self.constraint_blocks = None  # (Φ̄_i, Φ̄_j) of the vectorized joint rows
        self.multipliers_read = False  # set when a force asks for λ (friction): initial_accelerations then refines
        self.full_jacobian = None  # Φ_q of every row (also the dropped redundant ones), set by System.constraints
        self._full_lam = None

    @property
    def kin(self) -> list:
        """Per-body :class:`flexmbs.model.bodies.BodyKinematics` (views of ``q``, ``q̇`` and of the compiled ``A``, ``G``,
        ``ω'``), built on first use: the compiled paths (rigid-body terms, markers, joints) do not need them."""
        if self._kin is None:
            q, v = self.q, self.v
            self._kin = [BodyKinematics(r=q[o:o + 3], p=q[o + 3:o + 7], A=self.A[k], G=self.G[k], qf=q[o + 7:o + n],
                                        rdot=v[o:o + 3], omega=self.omega[k], qfdot=v[o + 7:o + n])
                         for k, (o, n) in enumerate(self.system.body_ranges)]
        return self._kin

    def marker_arrays(self):
        """All markers at once: positions (n_m, 3), axes (n_m, 3, 3), Jacobians (n_m, 3, n_max) ×2, velocities and
        angular velocities (n_m, 3); ground markers have zero Jacobians."""
        if self._arrays is None:
            sys_ = self.system
            n_m, n_max = len(sys_.markers), sys_.n_quasi_max
            X, R = sys_.ground_positions.copy(), sys_.ground_axes.copy()
            JX, JTH = np.zeros((n_m, 3, n_max)), np.zeros((n_m, 3, n_max))
            V, W = np.zeros((n_m, 3)), np.zeros((n_m, 3))
            _k.marker_states(np.ascontiguousarray(self.q, dtype=float), np.ascontiguousarray(self.v, dtype=float),
                             self.A, self.omega, sys_.marker_body, sys_.body_offsets, sys_.body_n_modes,
                             sys_.marker_local, sys_.marker_orient, sys_.marker_s_t, sys_.marker_s_r,
                             X, R, JX, JTH, V, W)
            self._arrays = (X, R, JX, JTH, V, W)
        return self._arrays

    def marker(self, marker: Marker):
        state = self._markers[marker.index]
        if state is None:
            X, R, JX, JTH, V, W = self.marker_arrays()
            i, n = marker.index, (0 if marker.on_ground else marker.body.n_quasi)
            state = MarkerState(X[i], R[i], JX[i, :, :n], JTH[i, :, :n], V[i], W[i])
            self._markers[i] = state
        return state

    @property
    def full_lam(self) -> np.ndarray | None:
        """Multipliers of every constraint row (n_c_all,): ``lam`` itself, or with redundant rows dropped the
        minimum-norm split over all rows (:func:`flexmbs.engine.redundancy.minimum_norm_multipliers`)."""
        sys_ = self.system
        if self.lam is None or sys_.row_keep is None:
            return self.lam
        if self._full_lam is None or self._full_lam[0] is not self.lam:
            if self.full_jacobian is None:
                sys_.constraints(self)
            self._full_lam = (self.lam, minimum_norm_multipliers(self.full_jacobian, sys_.row_keep, self.lam))
        return self._full_lam[1]

    def joint_multipliers(self, joint) -> np.ndarray:
        """Lagrange multipliers of ``joint``'s rows (zeros before the first solve). Forces that depend on joint
        reactions must read them here (or through :meth:`joint_reaction`), not from ``lam`` directly."""
        self.multipliers_read = True
        if self.lam is None:
            return np.zeros(joint.n_equations)
        return self.full_lam[joint.offset:joint.offset + joint.n_equations]

    def _joint_jacobians(self, joint, si, sj):
        rows = self.joint_rows.get(joint)  # a user joint's base rows, kept by System.constraints
        compiled = self.system.compiled
        if rows is None and self.constraint_blocks is not None and joint in compiled.positions and not joint.drivers:
            pos = compiled.positions[joint]  # (the markers' Jacobians have their bodies' quasi-coordinates)
            return self.constraint_blocks[0][pos, :si.Jx.shape[1]], self.constraint_blocks[1][pos, :sj.Jx.shape[1]]
        ji, jj = rows if rows is not None else joint.equations(si, sj, self.t)[1:]
        if not joint.drivers:
            return ji, jj
        # the prescribed motions' rows (after the base rows): the gradients of their joint coordinates
        grads = [joint.coordinate(which, si, sj)[1:3] for which, _ in joint.drivers]
        return np.vstack([ji] + [gi[None, :] for gi, _ in grads]), np.vstack([jj] + [gj[None, :] for _, gj in grads])

    def joint_reaction(self, joint) -> tuple[np.ndarray, np.ndarray]:
        """Force (N) and torque (N m), global axes, the joint exerts on marker j's body, torque about marker j."""
        si, sj = self.marker(joint.marker_i), self.marker(joint.marker_j)
        ji, jj = self._joint_jacobians(joint, si, sj)
        lam = self.joint_multipliers(joint)
        on_j = not joint.marker_j.on_ground  # else on marker i's body, reversed and taken about marker j
        marker, jac, state = (joint.marker_j, jj, sj) if on_j else (joint.marker_i, ji, si)
        gen = -jac.T @ lam
        kin = self.kin[marker.body.index]
        force = gen[0:3]
        torque = kin.A @ gen[3:6] - cross(state.x - kin.r, force)
        if on_j:
            return force, torque
        return -force, -torque - cross(si.x - sj.x, force)


def to_coordinates_rows(jbar: np.ndarray, kin) -> np.ndarray:
    """Quasi-coordinate Jacobian rows (k, 6+m) → coordinate rows (k, 7+m)."""
    out = np.empty((jbar.shape[0], jbar.shape[1] + 1))
    out[:, 0:3] = jbar[:, 0:3]
    out[:, 3:7] = 2.0 * jbar[:, 3:6] @ kin.G
    out[:, 7:] = jbar[:, 6:]
    return out


def add_joint_rows(jac: np.ndarray, rows, joint, ji: np.ndarray, jj: np.ndarray, kin: list) -> None:
    """Add ``joint``'s quasi-coordinate Jacobians ``ji``, ``jj`` (marker i's and j's bodies) to ``jac[rows]`` as
    coordinate rows (``kin``: the bodies' kinematics; a ground marker's side adds nothing)."""
    for marker, jbar in ((joint.marker_i, ji), (joint.marker_j, jj)):
        if not marker.on_ground:
            jac[rows, marker.body.slice] += to_coordinates_rows(jbar, kin[marker.body.index])


def to_coordinates_vector(qbar: np.ndarray, kin) -> np.ndarray:
    """Quasi-coordinate generalized force (6+m,) → coordinate force (7+m,): ``Lᵀ Q̄``."""
    out = np.empty(qbar.size + 1)
    out[0:3] = qbar[0:3]
    out[3:7] = 2.0 * kin.G.T @ qbar[3:6]
    out[7:] = qbar[6:]
    return out


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two float arrays hold the same numbers bit for bit (a cache's test: cheaper than
    ``np.array_equal``, and stricter, -0.0 is not 0.0)."""
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def planar_row_sizes(joint, X: np.ndarray, R: np.ndarray, q: np.ndarray) -> list[float]:
    """The in-plane size of each scalar row of a library ``joint`` (its ``PRIMITIVES``, in row order) at the
    marker positions ``X`` (n_m, 3) and axes ``R`` (n_m, 3, 3) of the coordinates ``q``: over the joint's bodies,
    ``|J_x| + |J_y| + |J_θ · n|`` of the row's quasi-coordinate Jacobian (the rows of
    :func:`flexmbs.model.kernels.constraint_rows`), ``n`` = z the plane's normal, ``J_θ · n`` the row's rate under a
    turn of the body about ``n`` through its origin. With ``ρ`` a marker's arm from its body's origin and
    ``n × ρ = (-ρ_y, ρ_x, 0)``, per body of the joint:

    * point component ``c``, ``x_j[c] - x_i[c]``: ``[c = x] + [c = y] + |(n × ρ)_c|`` (zero for ``c = z``);
    * dot-1 ``a_iᵀ b_j``: ``|n · (a_i × b_j)|``;
    * dot-2 ``a_iᵀ d``, ``d = x_j - x_i``: ``|a_x| + |a_y|`` plus, on body i, ``|n · (a_i × d) - a_i · (n × ρ_i)|``,
      on body j ``|a_i · (n × ρ_j)|``.

    A ground marker's side adds nothing (it does not move)."""
    mi, mj = joint.marker_i, joint.marker_j
    xi, xj = X[mi.index].tolist(), X[mj.index].tolist()
    ri, rj = R[mi.index].tolist(), R[mj.index].tolist()  # rows of the axes matrices: ri[k][a] is axis a's k-th
    # each marker's in-plane arm from its body's origin (None on the ground)
    arms = [None if m.on_ground else (x[0] - float(q[m.body.offset]), x[1] - float(q[m.body.offset + 1]))
            for m, x in ((mi, xi), (mj, xj))]
    arm_i, arm_j = arms
    sides = (arm_i is not None) + (arm_j is not None)
    sizes = []
    for code, a, b in scalar_rows(joint.PRIMITIVES):
        if code == 0:  # n × ρ = (-ρ_y, ρ_x, 0): its component a
            size = 0.0
            for arm in arms:
                if arm is not None:
                    size += (a == 0) + (a == 1) + (abs(arm[1]) if a == 0 else abs(arm[0]) if a == 1 else 0.0)
        elif code == 1:
            ax, ay, bx, by = ri[0][a], ri[1][a], rj[0][b], rj[1][b]
            size = sides * abs(ax * by - ay * bx)
        else:
            ax, ay = ri[0][a], ri[1][a]
            dx, dy = xj[0] - xi[0], xj[1] - xi[1]
            across = abs(ax) + abs(ay)
            size = 0.0
            if arm_i is not None:
                size += across + abs((ax * dy - ay * dx) - (ay * arm_i[0] - ax * arm_i[1]))
            if arm_j is not None:
                size += across + abs(ay * arm_j[0] - ax * arm_j[1])
        sizes.append(size)
    return sizes


class HoldsSystem:
    """A part of a system's own evaluator (the :class:`~flexmbs.engine.evaluate.Evaluator`, its plan's Python parts
    and sampler) that may hold the system by a weak reference: the system keeps its evaluator, and a strong reference
    back would be a cycle that only the garbage collector frees (≈ 0.2 ms a run in the hydraulic race, issue 41)."""

    _holder = "part"

    @property
    def system(self):
        """The system; one line when it is gone (held weakly after :meth:`hold_system_weakly`)."""
        system = self._system
        if type(system) is weakref.ref:
            system = system()
            if system is None:
                raise ReferenceError(f"the system of this {self._holder} is gone (it holds the system weakly): "
                                     "keep the System while its evaluator is used")
        return system

    def hold_system_weakly(self) -> None:
        """Hold the system by a weak reference (its holder keeps it: no reference cycle through the plan)."""
        if type(self._system) is not weakref.ref:
            self._system = weakref.ref(self._system)


class System:
    """The assembled equations of a :class:`flexmbs.Model` (built by :func:`flexmbs.simulate`)."""

    def __init__(self, model):
        if not model.bodies:
            raise ModelError(f"model {model.name!r} has no bodies")
        self.model = model
        self.bodies = model.bodies
        offset = 0
        for body in self.bodies:
            body.offset = offset
            offset += body.n_coordinates
        self.n_q = offset
        self.body_ranges = [(b.offset, b.n_coordinates) for b in self.bodies]
        # the bodies' offsets, modes, coordinates, their Euler parameters among the coordinates (n_b, 4) and those's
        # entries in the flat Φ_q (row k: body k's normalization; Φ_q.put, ≈ 2 µs less than a fancy assignment): views
        # of one array (≈ 4 µs less than an array each at the start)
        n_b, n_q = len(self.bodies), self.n_q
        euler = [o + k for o, _ in self.body_ranges for k in range(3, 7)]
        table = np.array([*(o for o, _ in self.body_ranges), *(b.n_modes for b in self.bodies),
                          *(n for _, n in self.body_ranges), *euler,
                          *(e + n_q * (i // 4) for i, e in enumerate(euler))], dtype=np.int64)
        self.body_offsets, self.body_n_modes, self.body_n_coordinates = table[:n_b], table[n_b:2 * n_b], table[
            2 * n_b:3 * n_b]
        self._p_index = (table[3 * n_b:7 * n_b].reshape(n_b, 4), table[7 * n_b:].reshape(n_b, 4))
        # rigid bodies' inertia stacked for the compiled residual's one-call kernel (flexmbs.model.kernels.rigid_terms)
        rigid = [b for b in self.bodies if not b.n_modes]
        self._rigid_index = np.array([b.index for b in rigid], dtype=np.int64)
        self._rigid_mass = np.array([b.mass for b in rigid], dtype=float)
        self._rigid_first_moment = np.array([b.first_moment for b in rigid], dtype=float).reshape(-1, 3)
        self._rigid_inertia = np.array([b.inertia_origin for b in rigid], dtype=float).reshape(-1, 3, 3)
        self.markers = list(model.markers)
        self.joints = list(model.joints)
        for joint in self.joints:  # a previous planar run may have masked rows
            joint.row_mask = None
        if model.planar:  # the guides' markers join the grouped markers (one grouping: issue 41, the start)
            self._add_planar_guides()
        self._group_markers()
        if model.planar:  # the model's joints (the guides after them)
            self._mask_out_of_plane(self.joints[:len(model.joints)])
        self.forces = model.forces
        self.elements = model.elements
        for element in self.elements:
            for meas in element.measurements:
                if hasattr(meas, "reset"):
                    meas.reset()
        self.z_offsets = np.array([0, *accumulate(len(e.state_names) for e in self.elements)], dtype=np.int64)
        self.n_z = int(self.z_offsets[-1])
        self._assign_rows()

    def _group_markers(self):
        """The stacked marker data of the compiled marker kernel (node shapes zero-padded to the largest body)."""
        self.n_quasi_max = max(b.n_quasi for b in self.bodies)
        n_m = len(self.markers)
        self.ground_positions, self.ground_axes = np.zeros((n_m, 3)), np.zeros((n_m, 3, 3))
        m_max = max(b.n_modes for b in self.bodies)
        self.marker_body = np.array([m.body.index for m in self.markers], dtype=np.int64)
        self.marker_local = np.array([m.local_position for m in self.markers], dtype=float).reshape(n_m, 3)
        self.marker_orient = np.array([m.local_orientation for m in self.markers], dtype=float).reshape(n_m, 3, 3)
        self.marker_s_t, self.marker_s_r = np.zeros((n_m, 3, m_max)), np.zeros((n_m, 3, m_max))
        for m in self.markers:
            if m.on_ground:
                self.ground_positions[m.index] = m.local_position
                self.ground_axes[m.index] = m.local_orientation
            elif m.node is not None and m.body.n_modes:
                self.marker_s_t[m.index, :, :m.body.n_modes] = m.body.node_translations[m.node]
                self.marker_s_r[m.index, :, :m.body.n_modes] = m.body.node_rotations[m.node]

    # --- layout --------------------------------------------------------------------------------------
    def _assign_rows(self):
        row = len(self.bodies)
        for joint in self.joints:
            joint.offset = row
            row += joint.n_equations
        self.n_c_all = row  # every constraint row of the model
        self.n_c = row  # the independent rows the engine solves for (fewer once redundant rows are dropped)
        self.row_keep = None  # indices of the kept rows among all (None: all rows)
        self.redundancy = {}  # joint name -> one line on its dropped rows (flexmbs.engine.redundancy.redundancy_report)
        self.redundant_joints = []  # joints whose reaction split is not unique (minimum-norm split reported)
        self._reported = set()
        self.fallback_notes = []  # what the start and the run fell back to (flexmbs.engine.start.add_fallback)
        self.compiled = CompiledConstraints([j for j in self.joints if j.PRIMITIVES])
        self.fallback_joints = [j for j in self.joints if not j.PRIMITIVES]
        self.driven_joints = [j for j in self.joints if j.drivers]  # prescribed motions: compiled rows

    def _add_planar_guides(self):
        """Planar model: one planar joint per body to ground (its markers after the model's)."""
        for body in self.bodies:
            z0 = body.initial_position[2]
            base = Marker(f"planar-guide.{body.name}.ground", self.model.ground, position=(0.0, 0.0, z0))
            follower = Marker(f"planar-guide.{body.name}", body)
            for m in (base, follower):
                m.index = len(self.markers)
                self.markers.append(m)
            self.joints.append(Planar(base, follower, name=f"planar-guide({body.name})"))

    def _mask_out_of_plane(self, joints) -> None:
        """Planar model: drop the rows of ``joints`` (the model's) whose in-plane size at the placement is at most
        1e-9 of the joint's largest (:func:`planar_row_sizes` from a library joint's placed marker frames; a joint
        of the user's measured on its own base rows)."""
        q0 = np.concatenate(self._placements()[0])
        ctx = Context(self, q0, np.zeros(q0.size), 0.0)
        X, R = ctx.marker_arrays()[:2]
        for joint in joints:
            if joint.PRIMITIVES:  # (finite placements: the mask in Python floats, ≈ 3 µs less than numpy's)
                sizes = planar_row_sizes(joint, X, R, q0)
                cut = 1e-9 * max([1.0, *sizes])
                joint.row_mask = np.array([size > cut for size in sizes], dtype=bool)
                continue
            si, sj = ctx.marker(joint.marker_i), ctx.marker(joint.marker_j)
            _, ji, jj = joint.base_rows(si, sj)
            in_plane = np.zeros(ji.shape[0])
            for jac, marker in ((ji, joint.marker_i), (jj, joint.marker_j)):
                if marker.on_ground:
                    continue
                axis = ctx.A[marker.body.index][2]  # the plane's normal (z) in the body's axes, Aᵀ n
                in_plane += np.abs(jac[:, 0]) + np.abs(jac[:, 1]) + np.abs(jac[:, 3:6] @ axis)
            joint.row_mask = in_plane > 1e-9 * max(1.0, in_plane.max(initial=0.0))
        # the kinematics at the placement at rest, for the contexts there (select_rows, the start's check
        # flexmbs.engine.preflight.check_start, which lets go of them); arrays only, not the context, which
        # would hold the system back (a reference cycle)
        self._placement_kinematics = (q0, (ctx.A, ctx.G, ctx.omega, ctx.marker_arrays()))

    def _placements(self) -> tuple[list, list]:
        """The bodies' initial coordinates and rates (``initial_coordinates``), read once per system: a system is
        built for one run, from the model as it is then (the planar guides and the start read the same)."""
        found = getattr(self, "_placed", None)
        if found is None:
            qs, vs = zip(*[b.initial_coordinates() for b in self.bodies])
            found = self._placed = (list(qs), list(vs))
        return found

    def initial_state(self):
        """Approximate initial ``q``, ``q̇`` (n_q,) and ``z`` (n_z,) from the bodies' placements."""
        qs, vs = self._placements()
        z0 = [np.asarray(e.initial_state(), dtype=float).reshape(-1) for e in self.elements]
        return np.concatenate(qs), np.concatenate(vs), (np.concatenate(z0) if z0 else np.zeros(0))

    def context(self, q, v, t, lam=None) -> Context:
        """The context at ``(t, q, q̇)``; at the placement at rest (``q̇`` all +0.0, as :meth:`rest_context` has it:
        the force tables of the run's plan ask there), the kinematics found there, not evaluated again."""
        placed = getattr(self, "_placement_kinematics", None)
        if (placed is not None and type(q) is type(v) is np.ndarray and same_values(placed[0], q)
                and v.shape == q.shape and v.tobytes().count(0) == v.nbytes):
            return Context(self, q, v, t, lam, found=placed[1])
        return Context(self, q, v, t, lam)

    def rest_context(self, q, t) -> Context:
        """The context at ``q`` at rest (``q̇ = 0``): at the placement, the kinematics found there by the planar
        masks (:meth:`_mask_out_of_plane`), not evaluated again (:meth:`context`)."""
        return self.context(q, np.zeros(np.shape(q)), t)

    # --- constraints ---------------------------------------------------------------------------------
    def constraints(self, ctx: Context, jacobian: bool = True):
        """``Φ`` (n_c,) and ``Φ_q`` (n_c, n_q) of the kept (independent) rows; all rows are in ``ctx.full_jacobian``
        when redundant rows were dropped (:meth:`select_rows`)."""
        phi = np.empty(self.n_c_all)
        jac = np.zeros((self.n_c_all, self.n_q)) if jacobian else None
        p = ctx.q[self._p_index[0]]  # (n_b, 4) Euler parameters
        # ½(pᵀp - 1) in Python floats, the four squares summed as numpy's einsum("bi,bi->b") sums them (two lanes:
        # (p₀² + p₂²) + (p₁² + p₃²)), the same numbers without einsum's machinery (≈ 8 µs of a start, cold)
        phi[:p.shape[0]] = [0.5 * (((a * a + c * c) + (b * b + d * d)) - 1.0) for a, b, c, d in p.tolist()]
        if jacobian:
            jac.put(self._p_index[1], p)
        ctx.constraint_blocks = self.compiled.evaluate(ctx, phi, jac)
        for joint in self.fallback_joints:
            self._joint_rows(ctx, joint, phi, jac)
        if self.driven_joints:
            self._driver_rows(ctx, phi, jac if jac is not None else np.zeros((self.n_c_all, self.n_q)))
        keep = self.row_keep
        if keep is None:
            return phi, jac
        if jacobian:
            ctx.full_jacobian = jac
        return phi[keep], (jac[keep] if jacobian else None)

    def _driver_rows(self, ctx: Context, phi: np.ndarray, jac: np.ndarray) -> None:
        """The prescribed motions' rows ``coordinate - f(t)`` into ``phi``, ``jac`` (every row) by the run's compiled
        law (:func:`flexmbs.engine.force_elements.driver_rows`, on the joint coordinate of
        :func:`flexmbs.model.kernels.joint_coordinate`)."""
        signals: list = []
        drv = driver_table(self, signals)
        sig = np.array([float(f(ctx.t)) for _, f in signals])
        X, R, JX, JTH, V, W = ctx.marker_arrays()
        blocks = np.zeros((self.compiled.n_rows + len(drv), self.n_quasi_max))
        _prescribed_rows(drv, sig, X, R, JX, JTH, V, W, ctx.G, self.marker_body, self.body_offsets,
                         self.body_n_modes, phi, jac, blocks, blocks.copy())

    def all_constraints(self, ctx: Context):
        """``Φ`` (n_c_all,) and ``Φ_q`` (n_c_all, n_q) of every row, the dropped redundant ones included."""
        keep, self.row_keep = self.row_keep, None
        try:
            return self.constraints(ctx)
        finally:
            self.row_keep = keep

    def select_rows(self, q: np.ndarray, t: float = 0.0) -> np.ndarray:
        """Keep an independent set of constraint rows at ``q`` (:mod:`flexmbs.engine.redundancy`); returns the
        dropped rows and fills :attr:`redundancy` (joint name -> one line)."""
        phi, jac = self.all_constraints(self.rest_context(q, t))
        kept, dropped = independent_rows(jac)
        self.row_keep = kept if dropped.size else None
        # every row kept: these are the kept rows at (q, t), which the assembly of the positions asks for next
        self.rows_at = None if dropped.size else (np.array(q, dtype=float), float(t), phi, jac)
        self.n_c = kept.size
        self.redundancy, self.redundant_joints = (redundancy_report(self, jac, kept, dropped) if dropped.size
                                                  else ({}, []))
        return dropped

    def report_redundancy(self) -> None:
        """Warn each line of the redundant-constraint report once (as Adams' report), after the dropped equations
        were found consistent (:func:`flexmbs.engine.redundancy.check_dropped_rows`)."""
        for line in self.redundancy.values():
            if line not in self._reported:
                self._reported.add(line)
                warnings.warn(line, RedundantConstraintWarning, stacklevel=4)

    def _joint_rows(self, ctx, joint, phi, jac) -> None:
        """A user joint's rows (``joint.equations``) into ``phi`` and ``jac``; its quasi-coordinate Jacobians kept
        on the context (:meth:`Context.joint_reaction` reads them)."""
        res, ji, jj = joint.equations(ctx.marker(joint.marker_i), ctx.marker(joint.marker_j), ctx.t)
        rows = slice(joint.offset, joint.offset + res.size)
        phi[rows] = res
        if jac is not None:
            ctx.joint_rows[joint] = (ji, jj)
            add_joint_rows(jac, rows, joint, ji, jj, ctx.kin)

    def constraint_rate(self, q, v, t, dt: float = 1e-6) -> np.ndarray:
        """``Φ_t`` (n_c,) by central differences in time (rheonomic drivers)."""
        plus, minus = (self.constraints(self.context(q, v, at), False)[0] for at in (t + dt, t - dt))
        return (plus - minus) / (2.0 * dt)

    # --- dynamics ------------------------------------------------------------------------------------
    def mass_matrix(self, ctx: Context) -> np.ndarray:
        mass = np.zeros((self.n_q, self.n_q))
        for body, kin in zip(self.bodies, ctx.kin):
            mbar, _ = body.mass_and_quadratic_velocity(kin)
            lmat = to_coordinates_rows(np.eye(6 + body.n_modes), kin)  # L = diag(1, 2G, 1) (6+m, 7+m)
            mass[body.slice, body.slice] = lmat.T @ mbar @ lmat
        return mass

    # --- energy --------------------------------------------------------------------------------------
    def mechanical_energy(self, q, v, t=0.0) -> dict[str, float]:
        """Kinetic, gravitational, strain and spring energy (J) at ``(q, q̇)``."""
        ctx = self.context(q, v, t)
        kinetic = sum(b.kinetic_energy(k) for b, k in zip(self.bodies, ctx.kin))
        strain = sum(b.strain_energy(k) for b, k in zip(self.bodies, ctx.kin))
        gravity = self.model.gravity
        potential = -sum(float(gravity @ (b.mass * k.r + k.A @ b.first_moment_deformed(k.qf)))
                         for b, k in zip(self.bodies, ctx.kin))
        springs = sum(f.potential_energy(ctx) for f in self.forces)
        total = kinetic + potential + strain + springs
        return {"kinetic": kinetic, "gravity": potential, "strain": strain, "springs": springs, "total": total}


@njit(cache=True)
def _prescribed_rows(drv, sig, X, R, JX, JTH, V, W, G, marker_body, offsets, n_modes, phi, jac, ji, jj):
    """:func:`flexmbs.engine.force_elements.driver_rows` called from Python (it is compiled for compiled callers)."""
    driver_rows(drv, sig, X, R, JX, JTH, V, W, G, marker_body, offsets, n_modes, phi, jac, ji, jj)


def measure(ctx: Context, measurements, gradients: bool = True) -> tuple[np.ndarray, np.ndarray, list | None]:
    """Values (n_y,), rates (n_y,) and gradients (list of [(body, (6+m,))]; None without ``gradients``: then a
    measurement offering ``value_rate(ctx)`` is asked for its value and rate only) of measurements."""
    n = len(measurements)
    y, ydot, grads = np.empty(n), np.empty(n), ([] if gradients else None)
    for k, meas in enumerate(measurements):
        if not gradients:
            found = getattr(meas, "value_rate", None)
            y[k], ydot[k] = found(ctx) if found is not None else meas.evaluate(ctx)[:2]
            continue
        y[k], ydot[k], grad = meas.evaluate(ctx)
        grads.append(grad)
    return y, ydot, grads
