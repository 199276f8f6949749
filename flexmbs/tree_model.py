"""A flexmbs :class:`~flexmbs.Model` built from a modified-DH tree (:mod:`flexmbs.tree`), so the machine whose
inverse dynamics the Newton–Euler recursion gives can also be simulated forward.

One rigid body per group of links welded by fixed joints (σ = 2; their inertias are combined), one revolute or
prismatic joint per moving DH joint (markers at the frame ``j`` for ``q_j = 0`` on the antecedent and at frame ``j``
on the link, so the flexmbs joint coordinate *is* ``q_j``), and a :class:`JointSpringDamper` for the elastic and
friction terms of seed 004 eq. (4)–(6) (``k q + h q̇ + fs sign(q̇)`` opposing the joint motion). A body frame is the
frame of the first link of its group.

Massless (virtual) links (seed 004 L88–91) become bodies of ``virtual_mass``: the Cartesian formulation needs a
positive mass per body. This is a stand-in the results should state (``TreeModel.virtual``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fem.errors import ModelError

from .forces import ForceElement
from .model import Model
from .rotations import g_matrix, quaternion_from_matrix
from .tree import DHTree, LinkParameters, dh_transform, forward_kinematics, friction_sign, link_kinematics

__all__ = ["TreeModel", "JointSpringDamper", "build_tree_model", "tree_coordinates", "implied_joint_forces"]


class JointSpringDamper(ForceElement):
    """Elastic and friction load along a joint coordinate: ``−(k q + h q̇ + fs sign(q̇))`` (seed 004 eq. (4)–(6)).

    Parameters
    ----------
    joint : Revolute or Prismatic
    stiffness : float, N m/rad or N/m (free at ``q = 0``)
    damping : float, N m s/rad or N s/m
    coulomb : float, N m or N
    friction_velocity : float, rad/s or m/s; ``sign`` regularized as ``tanh(q̇/v)`` when > 0
    """

    output_units = {"load": "N m or N", "coordinate": "rad or m", "rate": "rad/s or m/s"}

    def __init__(self, joint, stiffness=0.0, damping=0.0, coulomb=0.0, friction_velocity=0.0,
                 name: str | None = None):
        self.joint = joint
        self.which = joint.default_coordinate()
        self.stiffness, self.damping, self.coulomb = float(stiffness), float(damping), float(coulomb)
        self.friction_velocity = float(friction_velocity)
        self.name = name or f"spring({joint.name})"

    def markers(self):
        return [self.joint.marker_i, self.joint.marker_j]

    def _state(self, ctx):
        si, sj = ctx.marker(self.joint.marker_i), ctx.marker(self.joint.marker_j)
        value, gi, gj, rate = self.joint.coordinate(self.which, si, sj)
        load = -(self.stiffness * value + self.damping * rate
                 + self.coulomb * float(friction_sign(rate, self.friction_velocity)))
        return gi, gj, float(value), float(rate), float(load)

    def generalized_forces(self, ctx):
        gi, gj, _, _, load = self._state(ctx)
        out = []
        if not self.joint.marker_i.on_ground:
            out.append((self.joint.marker_i.body, load * gi))
        if not self.joint.marker_j.on_ground:
            out.append((self.joint.marker_j.body, load * gj))
        return out

    def outputs(self, ctx):
        _, _, value, rate, load = self._state(ctx)
        return {"load": load, "coordinate": value, "rate": rate}

    def potential_energy(self, ctx):
        si, sj = ctx.marker(self.joint.marker_i), ctx.marker(self.joint.marker_j)
        value = self.joint.coordinate(self.which, si, sj)[0]
        return 0.5 * self.stiffness * float(value) ** 2


@dataclass
class TreeModel:
    """The flexmbs model of a DH tree and the maps between the two descriptions."""

    model: Model
    tree: DHTree
    params: LinkParameters
    body_of_link: list  # flexmbs body (or None: on the base / in the skipped floating-base chain) per link
    link_in_body: tuple  # (R (n, 3, 3), p (n, 3)): link frame in its body's frame
    joints: dict  # link (1-based) -> flexmbs joint
    springs: dict  # link -> JointSpringDamper
    frames: dict  # link -> marker at the link frame origin (its body's marker)
    base_rotation: np.ndarray
    base_position: np.ndarray
    root_links: list  # first link of each body, in body order
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
                     name: str = "dh-tree") -> TreeModel:
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
    for j in roots:
        members = np.flatnonzero(root == j)
        mass, c, J_c = _combine(params, members, R_rel, p_rel)
        label = tree.names[j - 1]
        if mass <= 0.0:
            mass, c, J_c = virtual_mass, np.zeros(3), virtual_inertia * np.eye(3)
            virtual.append(label)
        k = j - 1
        body = model.add_rigid_body(label, mass, J_c, centre_of_mass=c, position=x0 + R0 @ P0[k],
                                    orientation=R0 @ A0[k], velocity=R0 @ A0[k] @ kin.velocity[k],
                                    angular_velocity=R0 @ A0[k] @ kin.omega[k])
        for m in members:
            body_of_link[m] = body
    frames, joints, springs = {}, {}, {}
    for k in range(n):
        if root[k] > 0:
            frames[k + 1] = model.add_marker(body_of_link[k], f"{tree.names[k]}.frame", position=p_rel[k],
                                             orientation=R_rel[k])
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
            owner, pos, orient = body_of_link[i - 1], p_rel[i - 1] + R_rel[i - 1] @ P_zero, R_rel[i - 1] @ A_zero
        base = model.add_marker(owner, f"{tree.names[k]}.joint_base", position=pos, orientation=orient)
        kind = "revolute" if tree.sigma[k] == 0 else "prismatic"
        joints[j] = model.add_joint(kind, base, frames[j], name=f"joint{j}")
        if params.stiffness[k] or params.damping[k] or params.coulomb[k]:
            springs[j] = model.add_force(JointSpringDamper(
                joints[j], params.stiffness[k], params.damping[k], params.coulomb[k], params.friction_velocity,
                name=f"elastic{j}"))
    return TreeModel(model, tree, params, body_of_link, (R_rel, p_rel), joints, springs, frames, R0, x0, roots,
                     virtual)


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
        A = R0 @ A0[k]
        p = quaternion_from_matrix(A)
        G = g_matrix(p)
        w, wd = kin.omega[k], kin.omega_dot[k]  # body axes
        pd = 0.5 * G.T @ w
        pdd = 0.5 * (g_matrix(pd).T @ w + G.T @ wd)
        qs.append(np.concatenate([x0 + R0 @ P0[k], p]))
        vs.append(np.concatenate([A @ kin.velocity[k], pd]))
        accs.append(np.concatenate([A @ kin.acceleration[k], pdd]))
    return np.concatenate(qs), np.concatenate(vs), np.concatenate(accs)


def implied_joint_forces(tm: TreeModel, q, qd, qdd, t: float = 0.0) -> tuple[np.ndarray, float]:
    """Joint forces/torques (n,) that make the flexmbs model move with ``(q, q̇, q̈)``: the inverse of its forward
    dynamics. Solves ``M q̈_c − Q = −Φ_qᵀ λ + Σ_j Γ_j (∂q_j/∂q_c)ᵀ`` for ``λ`` and ``Γ`` (least squares on a square,
    nonsingular system); returns ``Γ`` (0 for fixed joints) and the relative residual of that solve."""
    from .system import System, to_coordinates_rows

    system = System(tm.model)
    qc, vc, ac = tree_coordinates(tm, q, qd, qdd)
    z = np.zeros(system.n_z)
    res, _, _, jac, _, ctx = system.residual(qc, vc, ac, z, np.zeros(system.n_c), t)
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
