"""Tree-structured rigid models from modified Denavit–Hartenberg parameters (Khalil–Kleinfinger; seed 004 §2–3).

Every link ``j`` has an antecedent ``i = a(j)`` (0 is the base) and six geometric parameters ``γ, b, α, d, θ, r``;
the joint variable ``q_j`` is added to ``θ_j`` (revolute, ``σ_j = 0``) or to ``r_j`` (prismatic, ``σ_j = 1``); a
fixed joint has ``σ_j = 2`` (seed 004 L181–190). The arrays ``theta`` and ``r`` hold the constant parts, so a row
``θ = π/2, r = q`` of the seed's Table 1 is ``theta = π/2, r = 0, sigma = 1``.

Transformation, seed 004 eq. (1) (L121–169), ``ⁱT_j = Rot(z,γ) Trans(z,b) Rot(x,α) Trans(x,d) Rot(z,θ) Trans(z,r)``::

    ⁱA_j = [ CγCθ − SγCαSθ   −CγSθ − SγCαCθ    SγSα          ⁱP_j = [ d Cγ + r Sγ Sα
             SγCθ + CγCαSθ   −SγSθ + CγCαCθ   −CγSα                   d Sγ − r Cγ Sα
             SαSθ             SαCθ              Cα  ]                  r Cα + b        ]

The seed prints ``SγCθ − CγCαSθ`` in row 2, column 1 (a sign error: that matrix is not orthogonal; see
:func:`printed_rotation` and docs/cases/compactor.md).

Dynamics, seed 004 eq. (4)–(18): the recursive Newton–Euler algorithm (:func:`inverse_dynamics`) with elastic
``Γe = k q`` and friction ``Γf = h q̇ + fs sign(q̇)`` joint terms, external wrenches ``fe, me`` applied BY link ``j``
ON the environment (in frame ``j``, moment about ``O_j``), gravity through ``⁰V̇₀ = −g``; the regressor
``Γ + Q = D_S(q, q̇, q̈) X_S`` (:func:`regressor`, eq. (18)) and ``Q = −Σ J_jᵀ Fe_j`` from the link Jacobians
(:func:`external_generalized_forces`, eq. (5)).

Standard parameters per link (13, Khalil's order): ``XX XY XZ YY YZ ZZ`` (inertia at ``O_j`` in frame ``j``, kg m²),
``MX MY MZ`` (first moments, kg m), ``M`` (kg), ``k`` (N/m or N m/rad), ``h`` (N s/m or N m s/rad), ``fs`` (N or N m).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fem.errors import ModelError

__all__ = ["DHTree", "LinkParameters", "PARAMETER_NAMES", "dh_transform", "printed_rotation", "joint_transforms",
           "forward_kinematics", "link_kinematics", "inverse_dynamics", "regressor", "friction_sign",
           "external_generalized_forces", "parameter_vector", "parameters_from_vector", "link_wrenches"]

PARAMETER_NAMES = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M", "k", "h", "fs")
N_PAR = len(PARAMETER_NAMES)
_ROW, _COLUMN = np.array([0, 0, 0, 1, 1, 2]), np.array([0, 1, 2, 1, 2, 2])  # XX XY XZ YY YZ ZZ in a matrix
_Z = np.array([0.0, 0.0, 1.0])


@dataclass(frozen=True)
class DHTree:
    """Geometry of a tree of links in modified DH parameters (arrays of shape (n,), link ``j`` at index ``j-1``).

    Parameters
    ----------
    parent : (n,) int
        Antecedent ``a(j)``, 1-based (0 = base); must be smaller than ``j``.
    sigma : (n,) int
        0 revolute, 1 prismatic, 2 fixed.
    gamma, b, alpha, d, theta, r : (n,) float
        Constant DH parameters (rad, m); the joint variable adds to ``theta`` (σ = 0) or ``r`` (σ = 1).
    mu : (n,) int
        1 actuated, 0 passive (Khalil's convention; seed 004 does not define it).
    names : tuple of str
    """

    parent: np.ndarray
    sigma: np.ndarray
    gamma: np.ndarray
    b: np.ndarray
    alpha: np.ndarray
    d: np.ndarray
    theta: np.ndarray
    r: np.ndarray
    mu: np.ndarray = None
    names: tuple = ()

    def __post_init__(self):
        n = len(self.parent)
        columns = {key: np.asarray(getattr(self, key), dtype=float).reshape(-1)
                   for key in ("gamma", "b", "alpha", "d", "theta", "r")}
        columns.update({key: np.asarray(getattr(self, key), dtype=int).reshape(-1) for key in ("sigma", "parent")})
        columns["mu"] = np.zeros(n, dtype=int) if self.mu is None else np.asarray(self.mu, dtype=int).reshape(-1)
        for key, value in columns.items():
            if value.size != n:
                raise ModelError(f"DH table: column {key!r} has {value.size} entries, the table has {n} links")
        parent, sigma = columns["parent"], columns["sigma"]
        if np.any(parent < 0) or np.any(parent >= np.arange(1, n + 1)):
            raise ModelError("DH table: every antecedent a(j) must be in 0..j-1 (number the links from the base)")
        if np.any((sigma < 0) | (sigma > 2)):
            raise ModelError("DH table: sigma must be 0 (revolute), 1 (prismatic) or 2 (fixed)")
        columns["names"] = tuple(self.names) or tuple(f"link{j}" for j in range(1, n + 1))
        if len(columns["names"]) != n:
            raise ModelError(f"DH table: {len(columns['names'])} names for {n} links")
        for key, value in columns.items():
            object.__setattr__(self, key, value)

    @property
    def n(self) -> int:
        return int(self.parent.size)

    @property
    def revolute(self) -> np.ndarray:
        """σ̄_j as floats (1 for revolute joints)."""
        return (self.sigma == 0).astype(float)

    @property
    def prismatic(self) -> np.ndarray:
        """σ_j as floats (1 for prismatic joints; 0 for revolute and fixed)."""
        return (self.sigma == 1).astype(float)

    def children(self, j: int) -> np.ndarray:
        """1-based indices of the links whose antecedent is ``j``."""
        return np.flatnonzero(self.parent == j) + 1

    def ancestors(self, j: int) -> list[int]:
        """Links from ``j`` down to the base (1-based, ``j`` first)."""
        chain = []
        while j > 0:
            chain.append(j)
            j = int(self.parent[j - 1])
        return chain

    def with_fixed(self, links, q=None) -> "DHTree":
        """A copy with the joints ``links`` (1-based) locked (σ = 2) at the values ``q`` (n,) (zero by default)."""
        q = np.zeros(self.n) if q is None else np.asarray(q, dtype=float)
        sigma, theta, r = self.sigma.copy(), self.theta.copy(), self.r.copy()
        for j in links:
            k = j - 1
            if sigma[k] == 0:
                theta[k] += q[k]
            elif sigma[k] == 1:
                r[k] += q[k]
            sigma[k] = 2
        return DHTree(self.parent, sigma, self.gamma, self.b, self.alpha, self.d, theta, r, self.mu, self.names)


@dataclass
class LinkParameters:
    """Dynamic parameters of all links (seed 004 §3.1), each (n,) or (n, 3) / (n, 3, 3), SI units.

    ``first_moment`` is ``MS_j = M_j s_j`` (``s_j``: centre of mass in frame ``j``); ``inertia`` is ``J_j`` about
    ``O_j`` in frame ``j`` (not about the centre of mass).
    """

    mass: np.ndarray
    first_moment: np.ndarray
    inertia: np.ndarray
    stiffness: np.ndarray = None
    damping: np.ndarray = None
    coulomb: np.ndarray = None
    friction_velocity: float = 0.0  # m/s or rad/s: sign(q̇) regularized as tanh(q̇/v) when > 0

    def __post_init__(self):
        self.mass = np.asarray(self.mass, dtype=float).reshape(-1)
        n = self.mass.size
        self.first_moment = np.asarray(self.first_moment, dtype=float).reshape(n, 3)
        self.inertia = np.asarray(self.inertia, dtype=float).reshape(n, 3, 3)
        for key in ("stiffness", "damping", "coulomb"):
            value = getattr(self, key)
            setattr(self, key, np.zeros(n) if value is None else np.asarray(value, dtype=float).reshape(n))


def dh_transform(gamma, b, alpha, d, theta, r):
    """Corrected eq. (1): ``ⁱA_j`` (..., 3, 3) and ``ⁱP_j`` (..., 3) of arrays of DH parameters."""
    cg, sg, ca, sa, ct, st = (np.cos(gamma), np.sin(gamma), np.cos(alpha), np.sin(alpha), np.cos(theta),
                              np.sin(theta))
    A = np.stack([
        np.stack([cg * ct - sg * ca * st, -cg * st - sg * ca * ct, sg * sa], axis=-1),
        np.stack([sg * ct + cg * ca * st, -sg * st + cg * ca * ct, -cg * sa], axis=-1),  # seed prints "−" here
        np.stack([sa * st, sa * ct, ca], axis=-1),
    ], axis=-2)
    P = np.stack([d * cg + r * sg * sa, d * sg - r * cg * sa, r * ca + b], axis=-1)
    return A, P


def printed_rotation(gamma, b, alpha, d, theta, r) -> np.ndarray:
    """``ⁱA_j`` exactly as printed in seed 004 eq. (1), L145 (row 2, column 1 ``SγCθ − CγCαSθ``): not orthogonal."""
    A, _ = dh_transform(gamma, b, alpha, d, theta, r)
    A = np.array(A, copy=True)
    A[..., 1, 0] = np.sin(gamma) * np.cos(theta) - np.cos(gamma) * np.cos(alpha) * np.sin(theta)
    return A


def joint_transforms(tree: DHTree, q):
    """``ⁱA_j`` (n, 3, 3) and ``ⁱP_j`` (n, 3) at joint variables ``q`` (n,) (ignored for fixed joints)."""
    q = np.asarray(q, dtype=float).reshape(tree.n)
    return dh_transform(tree.gamma, tree.b, tree.alpha, tree.d, tree.theta + tree.revolute * q,
                        tree.r + tree.prismatic * q)


def forward_kinematics(tree: DHTree, q):
    """Orientation ``⁰A_j`` (n, 3, 3) and origin ``⁰P_j`` (n, 3) of every link frame in the base frame."""
    A, P = joint_transforms(tree, q)
    A0, P0 = np.empty_like(A), np.empty_like(P)
    for k, i in enumerate(tree.parent):
        if i == 0:
            A0[k], P0[k] = A[k], P[k]
        else:
            A0[k], P0[k] = A0[i - 1] @ A[k], P0[i - 1] + A0[i - 1] @ P[k]
    return A0, P0


@dataclass
class LinkKinematics:
    """Forward-recursion results, each in the link's own frame: (n, 3) arrays."""

    omega: np.ndarray  # ʲω_j, rad/s
    omega_dot: np.ndarray  # ʲω̇_j, rad/s²
    velocity: np.ndarray  # ʲV_j (origin), m/s
    acceleration: np.ndarray  # ʲV̇_j (origin, minus gravity: the accelerometer convention), m/s²
    omega_parent: np.ndarray  # ʲω_i, rad/s
    A: np.ndarray  # ⁱA_j (n, 3, 3)
    P: np.ndarray  # ⁱP_j (n, 3)


def link_kinematics(tree: DHTree, q, qd, qdd, gravity=(0.0, 0.0, 0.0), base=None) -> LinkKinematics:
    """Forward recursion, seed 004 eq. (7)–(10), with ``⁰V̇₀ = −g`` (``gravity`` (3,) in the base frame, m/s²).

    ``base``: optional ``(ω₀, ω̇₀, V₀, V̇₀)`` of the base frame in its own axes (a moving base; then ``gravity`` is
    ignored and ``V̇₀`` must already contain ``−g``).
    """
    n = tree.n
    q, qd, qdd = (np.asarray(x, dtype=float).reshape(n) for x in (q, qd, qdd))
    A, P = joint_transforms(tree, q)
    sb, sp = tree.revolute, tree.prismatic
    w, wd, v, vd, wi = (np.zeros((n, 3)) for _ in range(5))
    if base is None:
        w0, wd0, v0, vd0 = np.zeros(3), np.zeros(3), np.zeros(3), -np.asarray(gravity, dtype=float).reshape(3)
    else:
        w0, wd0, v0, vd0 = (np.asarray(x, dtype=float).reshape(3) for x in base)
    for k in range(n):
        i = tree.parent[k]
        w_i, wd_i, v_i, vd_i = (w0, wd0, v0, vd0) if i == 0 else (w[i - 1], wd[i - 1], v[i - 1], vd[i - 1])
        At = A[k].T
        wi[k] = At @ w_i  # eq. (7)
        w[k] = wi[k] + sb[k] * qd[k] * _Z  # eq. (8)
        wd[k] = At @ wd_i + sb[k] * (qdd[k] * _Z + np.cross(wi[k], qd[k] * _Z))  # eq. (9)
        vd[k] = At @ (vd_i + np.cross(wd_i, P[k]) + np.cross(w_i, np.cross(w_i, P[k]))) + sp[k] * (
            qdd[k] * _Z + 2.0 * np.cross(wi[k], qd[k] * _Z))  # eq. (10)
        v[k] = At @ (v_i + np.cross(w_i, P[k])) + sp[k] * qd[k] * _Z
    return LinkKinematics(w, wd, v, vd, wi, A, P)


def link_wrenches(params: LinkParameters, kin: LinkKinematics):
    """Total inertial force ``ʲF_j`` and moment ``ʲM_j`` about ``O_j`` (n, 3), seed 004 eq. (11), (12)."""
    w, wd, vd = kin.omega, kin.omega_dot, kin.acceleration
    ms, J = params.first_moment, params.inertia
    F = params.mass[:, None] * vd + np.cross(wd, ms) + np.cross(w, np.cross(w, ms))  # eq. (11)
    M = (np.einsum("nab,nb->na", J, wd) + np.cross(w, np.einsum("nab,nb->na", J, w))
         + np.cross(ms, vd))  # eq. (12)
    return F, M


def friction_sign(qd, velocity: float = 0.0):
    """``sign(q̇)`` of eq. (6), or ``tanh(q̇/v)`` when a regularization velocity ``v`` > 0 is given."""
    qd = np.asarray(qd, dtype=float)
    return np.tanh(qd / velocity) if velocity > 0.0 else np.sign(qd)


def inverse_dynamics(tree: DHTree, params: LinkParameters, q, qd, qdd, gravity=(0.0, 0.0, 0.0), f_ext=None,
                     m_ext=None, base=None, full: bool = False):
    """Joint forces/torques ``Γ`` (n,) by the recursive Newton–Euler algorithm, seed 004 eq. (7)–(17).

    Parameters
    ----------
    tree : DHTree
    params : LinkParameters
    q, qd, qdd : (n,) joint positions (rad, m), rates and accelerations
    gravity : (3,) m/s², in the base frame
    f_ext, m_ext : (n, 3), optional
        Force (N) and moment about ``O_j`` (N m) applied BY link ``j`` ON the environment, in frame ``j``.
    base : optional moving-base state, see :func:`link_kinematics`
    full : bool
        Also return the link kinematics and the wrenches ``ʲf_j, ʲm_j`` (n, 3) each link's antecedent exerts on it.

    Returns
    -------
    Γ : (n,) N or N m (0 for fixed joints); with ``full``: ``(Γ, kinematics, f, m)``.
    """
    n = tree.n
    kin = link_kinematics(tree, q, qd, qdd, gravity, base)
    F, M = link_wrenches(params, kin)
    f = F + (0.0 if f_ext is None else np.asarray(f_ext, dtype=float).reshape(n, 3))  # eq. (14), own terms
    m = M + (0.0 if m_ext is None else np.asarray(m_ext, dtype=float).reshape(n, 3))  # eq. (16), own terms
    for k in range(n - 1, -1, -1):  # backward: children have larger indices than their antecedent
        i = tree.parent[k]
        if i > 0:
            fi = kin.A[k] @ f[k]  # eq. (15)
            f[i - 1] += fi
            m[i - 1] += kin.A[k] @ m[k] + np.cross(kin.P[k], fi)  # eq. (16)
    qd = np.asarray(qd, dtype=float).reshape(n)
    gamma = tree.prismatic * f[:, 2] + tree.revolute * m[:, 2]  # eq. (17)
    moving = tree.sigma < 2
    q = np.asarray(q, dtype=float).reshape(n)
    gamma = gamma + moving * (params.stiffness * q + params.damping * qd
                              + params.coulomb * friction_sign(qd, params.friction_velocity))  # eq. (4)–(6)
    return (gamma, kin, f, m) if full else gamma


def _inertia_columns(w: np.ndarray) -> np.ndarray:
    """``L(w)`` (3, 6) with ``J w = L(w) [XX, XY, XZ, YY, YZ, ZZ]``."""
    x, y, z = w
    return np.array([[x, y, z, 0.0, 0.0, 0.0], [0.0, x, 0.0, y, z, 0.0], [0.0, 0.0, x, 0.0, y, z]])


def _skew(v: np.ndarray) -> np.ndarray:
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def regressor(tree: DHTree, q, qd, qdd, gravity=(0.0, 0.0, 0.0), base=None, friction_velocity: float = 0.0):
    """``D_S(q, q̇, q̈)`` (n, 13 n) of seed 004 eq. (18): ``Γ + Q = D_S X_S`` (columns: :data:`PARAMETER_NAMES`
    per link, link 1 first). The backward recursion of eq. (14)–(17) carried on (3, 13 n) blocks."""
    n = tree.n
    kin = link_kinematics(tree, q, qd, qdd, gravity, base)
    q, qd = (np.asarray(x, dtype=float).reshape(n) for x in (q, qd))
    n_col = N_PAR * n
    f = np.zeros((n, 3, n_col))
    m = np.zeros((n, 3, n_col))
    for k in range(n):
        c = N_PAR * k
        w, wd, vd = kin.omega[k], kin.omega_dot[k], kin.acceleration[k]
        sw = _skew(w)
        f[k, :, c + 6:c + 9] = _skew(wd) + sw @ sw  # eq. (11): (ω̃̇ + ω̃ω̃) MS
        f[k, :, c + 9] = vd  # M V̇
        m[k, :, c:c + 6] = _inertia_columns(wd) + sw @ _inertia_columns(w)  # eq. (12): J ω̇ + ω × J ω
        m[k, :, c + 6:c + 9] = -_skew(vd)  # MS × V̇
    for k in range(n - 1, -1, -1):
        i = tree.parent[k]
        if i > 0:
            fi = kin.A[k] @ f[k]
            f[i - 1] += fi
            m[i - 1] += kin.A[k] @ m[k] + _skew(kin.P[k]) @ fi
    D = tree.prismatic[:, None] * f[:, 2, :] + tree.revolute[:, None] * m[:, 2, :]
    rows = np.flatnonzero(tree.sigma < 2)
    D[rows, N_PAR * rows + 10] = q[rows]  # Γe = k q
    D[rows, N_PAR * rows + 11] = qd[rows]  # Γf = h q̇ + fs sign(q̇)
    D[rows, N_PAR * rows + 12] = friction_sign(qd[rows], friction_velocity)
    return D


def parameter_vector(params: LinkParameters) -> np.ndarray:
    """``X_S`` (13 n,) in the order of :data:`PARAMETER_NAMES`, link after link."""
    inertia = params.inertia[:, _ROW, _COLUMN]  # XX XY XZ YY YZ ZZ
    return np.column_stack([inertia, params.first_moment, params.mass, params.stiffness, params.damping,
                            params.coulomb]).reshape(-1)


def parameters_from_vector(x, friction_velocity: float = 0.0) -> LinkParameters:
    """Inverse of :func:`parameter_vector`."""
    x = np.asarray(x, dtype=float).reshape(-1, N_PAR)
    J = np.ascontiguousarray(x[:, [0, 1, 2, 1, 3, 4, 2, 4, 5]]).reshape(-1, 3, 3)  # symmetric, from XX XY XZ YY YZ ZZ
    return LinkParameters(x[:, 9], x[:, 6:9], J, x[:, 10], x[:, 11], x[:, 12], friction_velocity)


def external_generalized_forces(tree: DHTree, q, f_ext, m_ext) -> np.ndarray:
    """``Q = −Σ_j J_jᵀ Fe_j`` (n,), seed 004 eq. (5), from the geometric Jacobians of the link frames.

    ``f_ext``, ``m_ext`` (n, 3): wrench applied BY link ``j`` ON the environment, frame ``j``, moment about ``O_j``.
    """
    A0, P0 = forward_kinematics(tree, q)
    f0 = np.einsum("nab,nb->na", A0, np.asarray(f_ext, dtype=float).reshape(tree.n, 3))
    m0 = np.einsum("nab,nb->na", A0, np.asarray(m_ext, dtype=float).reshape(tree.n, 3))
    z0 = A0[:, :, 2]
    Q = np.zeros(tree.n)
    for k in range(tree.n):
        for j in tree.ancestors(k + 1):
            s = tree.sigma[j - 1]
            if s == 1:  # ∂v_Ok/∂q̇_j = z_j, ∂ω_k/∂q̇_j = 0
                Q[j - 1] -= f0[k] @ z0[j - 1]
            elif s == 0:  # ∂v_Ok/∂q̇_j = z_j × (O_k − O_j), ∂ω_k/∂q̇_j = z_j
                Q[j - 1] -= f0[k] @ np.cross(z0[j - 1], P0[k] - P0[j - 1]) + m0[k] @ z0[j - 1]
    return Q
