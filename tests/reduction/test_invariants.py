"""Invariants I1..I9 against the kinetic energy computed directly from the FE mass matrix (seed 003 eq. 2-144..2-155)."""
import numpy as np
import scipy.sparse as sp

from reduction.flexbody import compute_invariants


def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def mass_matrix_of_q(inv, q):
    """M(q) in body axes from the invariants, as documented in reduction/flexbody.py."""
    m = q.size
    i1 = inv.mass
    m_vw = -skew(inv.first_moment + inv.first_moment_modes @ q)
    m_ww = inv.inertia + np.einsum("j,jkl->kl", q, inv.inertia_q + inv.inertia_q.transpose(0, 2, 1)) \
        + np.einsum("j,h,jhkl->kl", q, q, inv.inertia_qq)
    m_wq = inv.rotation_modes + np.einsum("j,jkl->kl", q, inv.rotation_modes_q)
    out = np.zeros((6 + m, 6 + m))
    out[:3, :3] = i1 * np.eye(3)
    out[:3, 3:6], out[3:6, :3] = m_vw, m_vw.T
    out[:3, 6:], out[6:, :3] = inv.first_moment_modes, inv.first_moment_modes.T
    out[3:6, 3:6] = m_ww
    out[3:6, 6:], out[6:, 3:6] = m_wq, m_wq.T
    out[6:, 6:] = inv.modal_mass
    return out


def test_kinetic_energy_from_invariants_equals_direct_sum():
    """Random consistent (non-diagonal) SPD mass ``kron(M_s, I₃)`` (the form every isotropic solid element has),
    random positions and modes: for random frame
    velocity v, angular velocity ω (body axes), q and q̇, ½ xᵀ M(q) x equals ½ uᵀ M u with the nodal velocities
    u_p = v + ω × (s_p + S_p q) + S_p q̇ (seed 003 eq. 2-146 in body axes) to round-off."""
    rng = np.random.default_rng(7)
    n, m = 40, 5
    a = rng.standard_normal((n, n))
    mass = sp.csr_matrix(np.kron(a @ a.T / n + np.eye(n), np.eye(3)))
    positions = rng.standard_normal((n, 3))
    modes = rng.standard_normal((3 * n, m)) * 0.1
    dofs = np.arange(3 * n).reshape(n, 3)
    inv = compute_invariants(mass, modes, positions, dofs)
    for _ in range(5):
        v, w, q, qd = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(m), rng.standard_normal(m)
        deformed = positions + (modes @ q).reshape(n, 3)
        u = (v + np.cross(w, deformed) + (modes @ qd).reshape(n, 3)).ravel()
        direct = 0.5 * u @ (mass @ u)
        x = np.concatenate([v, w, qd])
        from_invariants = 0.5 * x @ mass_matrix_of_q(inv, q) @ x
        assert np.isclose(from_invariants, direct, rtol=1e-12)
