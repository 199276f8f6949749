"""A flexmbs :class:`~flexmbs.Model` built from a modified-DH tree (:mod:`flexmbs.tree.dh`), so the machine whose
inverse dynamics the Newton–Euler recursion gives can also be simulated forward.

One rigid body per group of links welded by fixed joints (σ = 2; their inertias are combined), one revolute or
prismatic joint per moving DH joint (markers at the frame ``j`` for ``q_j = 0`` on the antecedent and at frame ``j``
on the link, so the flexmbs joint coordinate *is* ``q_j``), and one :class:`JointLoads` element for the elastic and
friction terms of seed 004 eq. (4)–(6) (``k q + h q̇ + fs sign(q̇)`` opposing the joint motion) of all joints.
A body frame is the frame of the first link of its group, turned (``body_axes="global"``, the default for planar
models) to the global axes of the initial pose, so that planar models keep every body's z axis on global Z.

Massless (virtual) links (seed 004 L88–91) become bodies of ``virtual_mass``: the Cartesian formulation needs a
positive mass per body. This is a stand-in the results should state (``TreeModel.virtual``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fem.errors import ModelError

from flexmbs.model.forces import ForceElement
from flexmbs.model.model import Model
from flexmbs.model.rotations import g_matrix, quaternion_from_matrix
from .dh import DHTree, LinkParameters, dh_transform, forward_kinematics, friction_sign, link_kinematics

__all__ = ["TreeModel", "JointLoads", "build_tree_model", "tree_coordinates", "implied_joint_forces"]


class JointLoads(ForceElement):
    """Elastic, friction and drive loads on many revolute/prismatic joints, evaluated vectorized in one element.

    Load on joint ``j`` along its coordinate: ``−(k q + h q̇ + fs sign(q̇)) + c_d (q̇_ref(t) − q̇)`` (seed 004
    eq. (4)–(6) plus an optional speed drive with gain ``c_d``, N m s/rad or N s/m, and reference ``q̇_ref(t)``).

    Parameters
    ----------
    joints : list of Revolute / Prismatic joints
    stiffness, damping, coulomb : (k,) arrays (SI, per joint);  friction_velocity : float (tanh regularization)
    drive_gain : (k,) array, optional;  drive_speed : list of callables t -> q̇_ref (or None), optional
    """

    def __init__(self, joints, stiffness, damping, coulomb, friction_velocity=0.0, drive_gain=None,
                 drive_speed=None, name: str = "joint_loads"):
        self.joints = list(joints)
        k = len(self.joints)
        self.stiffness, self.damping, self.coulomb = (np.asarray(x, dtype=float).reshape(k)
                                                      for x in (stiffness, damping, coulomb))
        self.friction_velocity = float(friction_velocity)
        self.drive_gain = np.zeros(k) if drive_gain is None else np.asarray(drive_gain, dtype=float).reshape(k)
        self.drive_speed = list(drive_speed) if drive_speed is not None else [None] * k
        self.revolute = np.array([j.default_coordinate() == "rotation" for j in self.joints])
        self.name = name
        self.output_units = {f"{j.name}/{key}": "N m" if revolute else "N"
                             for j, revolute in zip(self.joints, self.revolute) for key in ("load", "drive")}
        self._idx = None

    def markers(self):
        return [m for j in self.joints for m in (j.marker_i, j.marker_j)]

    def _evaluate(self, ctx):
        if self._idx is None:
            self._idx = (np.array([j.marker_i.index for j in self.joints]),
                         np.array([j.marker_j.index for j in self.joints]))
        mi, mj = self._idx
        X, R, JX, JTH, V, W = ctx.marker_arrays()
        zi, xi, yi, xj = R[mi, :, 2], R[mi, :, 0], R[mi, :, 1], R[mj, :, 0]
        d = X[mj] - X[mi]
        rev = self.revolute
        angle = np.arctan2(np.einsum("ka,ka->k", yi, xj), np.einsum("ka,ka->k", xi, xj))
        value = np.where(rev, angle, np.einsum("ka,ka->k", zi, d))
        rate_rev = np.einsum("ka,ka->k", zi, W[mj] - W[mi])
        rate_pri = np.einsum("ka,ka->k", zi, V[mj] - V[mi]) + np.einsum("ka,ka->k", d, np.cross(W[mi], zi))
        rate = np.where(rev, rate_rev, rate_pri)
        gi = np.where(rev[:, None], -np.einsum("ka,kan->kn", zi, JTH[mi]),
                      np.einsum("ka,kan->kn", np.cross(zi, d), JTH[mi]) - np.einsum("ka,kan->kn", zi, JX[mi]))
        gj = np.where(rev[:, None], np.einsum("ka,kan->kn", zi, JTH[mj]), np.einsum("ka,kan->kn", zi, JX[mj]))
        passive = -(self.stiffness * value + self.damping * rate
                    + self.coulomb * friction_sign(rate, self.friction_velocity))
        reference = np.array([f(ctx.t) if f is not None else 0.0 for f in self.drive_speed])
        drive = self.drive_gain * (reference - rate)
        return gi, gj, value, rate, passive, drive

    def generalized_forces(self, ctx):
        gi, gj, _, _, passive, drive = self._evaluate(ctx)
        load = passive + drive
        return [(marker.body, load[k] * g[:marker.body.n_quasi]) for k, joint in enumerate(self.joints)
                for marker, g in ((joint.marker_i, gi[k]), (joint.marker_j, gj[k])) if not marker.on_ground]

    def outputs(self, ctx):
        _, _, _, _, passive, drive = self._evaluate(ctx)
        return {f"{joint.name}/{key}": float(value[k]) for k, joint in enumerate(self.joints)
                for key, value in (("load", passive), ("drive", drive))}

    def potential_energy(self, ctx):
        value = self._evaluate(ctx)[2]
        return 0.5 * float(self.stiffness @ value**2)


@dataclass
class TreeModel:
    """The flexmbs model of a DH tree and the maps between the two descriptions."""

    model: Model
    tree: DHTree
    params: LinkParameters
    body_of_link: list  # flexmbs body (or None: on the base / in the skipped floating-base chain) per link
    link_in_body: tuple  # (R (n, 3, 3), p (n, 3)): link frame in the frame of its body's first link
    joints: dict  # link (1-based) -> flexmbs joint
    loads: JointLoads | None  # the elastic/friction loads of all moving joints (one vectorized element)
    frames: dict  # link -> marker at the link frame origin (its body's marker)
    base_rotation: np.ndarray
    base_position: np.ndarray
    root_links: list  # first link of each body, in body order
    body_axes: dict  # root link -> S (3, 3): root link axes -> body axes (constant)
    virtual: list = field(default_factory=list)  # names of bodies given the stand-in virtual mass


def _group_roots(tree: DHTree, free_base: int | None) -> tuple[np.ndarray, set]:
    """Root link of each link's body (0: welded to the base; -1: in the skipped floating-base chain)."""
    skipped = set(tree.ancestors(free_base)[1:]) if free_base else set()
    root = np.zeros(tree.n, dtype=int)
    for k in range(tree.n):
        j = k + 1
        if j in skipped:
            root[k] = -1
        elif j == free_base or tree.sigma[k] < 2:
            root[k] = j
        else:
            i = tree.parent[k]
            root[k] = 0 if i == 0 else root[i - 1]
            if root[k] == -1:
                raise ModelError(f"DH tree: link {j} is welded to the skipped floating-base chain")
    for k in range(tree.n):
        if root[k] > 0 and tree.parent[k] in skipped and (k + 1) != free_base:
            raise ModelError(f"DH tree: link {k + 1} hangs on the floating-base chain below link {free_base}")
    return root, skipped


def _combine(params: LinkParameters, members, R, p):
    """Mass (kg), centre of mass (3,) and inertia about it (3, 3) of welded links in the root frame."""
    mass, ms, J = 0.0, np.zeros(3), np.zeros((3, 3))
    eye = np.eye(3)
    for k in members:
        m_k, u = params.mass[k], R[k] @ params.first_moment[k]
        mass += m_k
        ms += m_k * p[k] + u
        J += (R[k] @ params.inertia[k] @ R[k].T + m_k * (p[k] @ p[k] * eye - np.outer(p[k], p[k]))
              + 2.0 * (p[k] @ u) * eye - np.outer(p[k], u) - np.outer(u, p[k]))
    if mass <= 0.0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    c = ms / mass
    return mass, c, J - mass * (c @ c * eye - np.outer(c, c))


def build_tree_model(tree: DHTree, params: LinkParameters, q=None, qd=None, gravity=(0.0, 0.0, 0.0),
                     base_position=(0.0, 0.0, 0.0), base_orientation=None, free_base: int | None = None,
                     planar: bool = False, virtual_mass: float = 1e-3, virtual_inertia: float = 1e-6,
                     body_axes: str | None = None, drives: dict | None = None, name: str = "dh-tree") -> TreeModel:
    """Build the flexmbs model of a DH tree placed at joint positions ``q`` with rates ``qd``.

    Parameters
    ----------
    tree, params : the geometry and dynamic parameters (fixed joints merge their links into one body)
    q, qd : (n,) initial joint positions and rates (zero by default)
    gravity : (3,) m/s², in the DH base frame 0
    base_position, base_orientation : pose of the DH base frame in global axes (m; (3, 3) matrix)
    free_base : int, optional
        Link whose ancestors form a massless 6-dof floating-base chain (seed 004 joints 1–6): the chain is not built
        and that link's body floats free (its initial pose and velocity still follow ``q``, ``qd``).
    planar : bool
        ``Model(planar=True)``: every body stays in the global XY plane.
    virtual_mass, virtual_inertia : kg, kg m²
        Stand-in inertia of bodies made only of massless links.
    body_axes : {"link", "global"}, optional
        Body frames along the first link's frame, or along the global axes at the initial pose (default for planar).
    drives : dict, optional
        ``{link: (gain, speed(t))}``: speed drives ``gain (q̇_ref(t) − q̇)`` on actuated joints
        (see :class:`JointLoads`).
    """
    n = tree.n
    q = np.zeros(n) if q is None else np.asarray(q, dtype=float).reshape(n)
    qd = np.zeros(n) if qd is None else np.asarray(qd, dtype=float).reshape(n)
    R0 = np.eye(3) if base_orientation is None else np.asarray(base_orientation, dtype=float).reshape(3, 3)
    x0 = np.asarray(base_position, dtype=float).reshape(3)
    root, skipped = _group_roots(tree, free_base)
    A0, P0 = forward_kinematics(tree, q)
    kin = link_kinematics(tree, q, qd, np.zeros(n))
    # link frame in its root frame (constant: only fixed joints in between)
    R_rel, p_rel = np.empty((n, 3, 3)), np.empty((n, 3))
    for k in range(n):
        if root[k] > 0:
            r = root[k] - 1
            R_rel[k], p_rel[k] = A0[r].T @ A0[k], A0[r].T @ (P0[k] - P0[r])
        else:  # on the base: relative to frame 0
            R_rel[k], p_rel[k] = A0[k], P0[k]
    model = Model(name, gravity=R0 @ np.asarray(gravity, dtype=float).reshape(3), planar=planar)
    body_of_link = [None] * n
    roots = [j for j in range(1, n + 1) if root[j - 1] == j]
    virtual = []
    axes = {}
    use_global = (body_axes or ("global" if planar else "link")) == "global"
    for j in roots:
        k = j - 1
        S = (R0 @ A0[k]).T if use_global else np.eye(3)
        axes[j] = S
        members = np.flatnonzero(root == j)
        mass, c, J_c = _combine(params, members, R_rel, p_rel)
        label = tree.names[k]
        if mass <= 0.0:
            mass, c, J_c = virtual_mass, np.zeros(3), virtual_inertia * np.eye(3)
            virtual.append(label)
        A_body = R0 @ A0[k] @ S
        body = model.add_rigid_body(label, mass, S.T @ J_c @ S, centre_of_mass=S.T @ c, position=x0 + R0 @ P0[k],
                                    orientation=A_body, velocity=R0 @ A0[k] @ kin.velocity[k],
                                    angular_velocity=R0 @ A0[k] @ kin.omega[k])
        for m in members:
            body_of_link[m] = body
    link_axes = {k: axes[root[k]] for k in range(n) if root[k] > 0}
    frames, joints = {}, {}
    for k in range(n):
        if root[k] > 0:
            S = link_axes[k]
            frames[k + 1] = model.add_marker(body_of_link[k], f"{tree.names[k]}.frame", position=S.T @ p_rel[k],
                                             orientation=S.T @ R_rel[k])
    for j in roots:
        k = j - 1
        if j == free_base:
            continue
        i = tree.parent[k]
        A_zero, P_zero = dh_transform(tree.gamma[k], tree.b[k], tree.alpha[k], tree.d[k], tree.theta[k], tree.r[k])
        if i == 0 or root[i - 1] == 0:
            R_i, p_i = (np.eye(3), np.zeros(3)) if i == 0 else (R_rel[i - 1], p_rel[i - 1])
            owner, pos, orient = model.ground, x0 + R0 @ (p_i + R_i @ P_zero), R0 @ R_i @ A_zero
        else:
            S = link_axes[i - 1]
            owner = body_of_link[i - 1]
            pos, orient = S.T @ (p_rel[i - 1] + R_rel[i - 1] @ P_zero), S.T @ R_rel[i - 1] @ A_zero
        base = model.add_marker(owner, f"{tree.names[k]}.joint_base", position=pos, orientation=orient)
        kind = "revolute" if tree.sigma[k] == 0 else "prismatic"
        joints[j] = model.add_joint(kind, base, frames[j], name=f"joint{j}")
    loaded = [j for j in sorted(joints) if params.stiffness[j - 1] or params.damping[j - 1] or params.coulomb[j - 1]
              or j in (drives or {})]
    loads = None
    if loaded:
        drives = drives or {}
        idx = np.array(loaded) - 1
        loads = model.add_force(JointLoads(
            [joints[j] for j in loaded], params.stiffness[idx], params.damping[idx], params.coulomb[idx],
            params.friction_velocity, [drives.get(j, (0.0, None))[0] for j in loaded],
            [drives.get(j, (0.0, None))[1] for j in loaded], name="joint_loads"))
    return TreeModel(model, tree, params, body_of_link, (R_rel, p_rel), joints, loads, frames, R0, x0, roots,
                     axes, virtual)


def tree_coordinates(tm: TreeModel, q, qd, qdd):
    """flexmbs coordinates, rates and accelerations (n_q,) of the built bodies at joint state ``(q, q̇, q̈)``
    (bodies in model order; Euler-parameter rates from ``ṗ = ½ Gᵀ ω'``, ``p̈ = ½ (G(ṗ)ᵀ ω' + G(p)ᵀ ω̇')``)."""
    tree = tm.tree
    A0, P0 = forward_kinematics(tree, q)
    kin = link_kinematics(tree, q, qd, qdd)  # no gravity: true accelerations
    R0, x0 = tm.base_rotation, tm.base_position
    qs, vs, accs = [], [], []
    for j in tm.root_links:
        k = j - 1
        S = tm.body_axes[j]
        A = R0 @ A0[k] @ S
        p = quaternion_from_matrix(A)
        G = g_matrix(p)
        w, wd = S.T @ kin.omega[k], S.T @ kin.omega_dot[k]  # body axes
        pd = 0.5 * G.T @ w
        pdd = 0.5 * (g_matrix(pd).T @ w + G.T @ wd)
        qs.append(np.concatenate([x0 + R0 @ P0[k], p]))
        vs.append(np.concatenate([R0 @ A0[k] @ kin.velocity[k], pd]))
        accs.append(np.concatenate([R0 @ A0[k] @ kin.acceleration[k], pdd]))
    return np.concatenate(qs), np.concatenate(vs), np.concatenate(accs)


def implied_joint_forces(tm: TreeModel, q, qd, qdd, t: float = 0.0) -> tuple[np.ndarray, float]:
    """Joint forces/torques (n,) that make the flexmbs model move with ``(q, q̇, q̈)``: the inverse of its forward
    dynamics. Solves ``M q̈_c − Q = −Φ_qᵀ λ + Σ_j Γ_j (∂q_j/∂q_c)ᵀ`` for ``λ`` and ``Γ`` (least squares on a square,
    nonsingular system); returns ``Γ`` (0 for fixed joints) and the relative residual of that solve."""
    from flexmbs.engine.evaluate import Evaluator
    from flexmbs.engine.system import System, to_coordinates_rows

    system = System(tm.model)
    qc, vc, ac = tree_coordinates(tm, q, qd, qdd)
    z = np.zeros(system.n_z)
    res, _, _, jac, _ = Evaluator(system, qc, vc, z, t).residual(t, qc, vc, ac, z, np.zeros(system.n_c))
    ctx = system.context(qc, vc, t)
    links = sorted(tm.joints)
    G = np.zeros((len(links), system.n_q))
    for row, j in enumerate(links):
        joint = tm.joints[j]
        si, sj = ctx.marker(joint.marker_i), ctx.marker(joint.marker_j)
        _, gi, gj, _ = joint.coordinate(joint.default_coordinate(), si, sj)
        for marker, g in ((joint.marker_i, gi), (joint.marker_j, gj)):
            if not marker.on_ground:
                G[row, marker.body.slice] += to_coordinates_rows(g[None, :], ctx.kin[marker.body.index])[0]
    mat = np.hstack([jac.T, -G.T])
    sol, *_ = np.linalg.lstsq(mat, -res, rcond=None)
    gamma = np.zeros(tm.tree.n)
    gamma[np.array(links) - 1] = sol[system.n_c:]
    misfit = float(np.linalg.norm(mat @ sol + res) / max(np.linalg.norm(res), 1e-300))
    return gamma, misfit
