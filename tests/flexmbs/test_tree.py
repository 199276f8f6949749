"""Modified-DH trees: kinematics, Newton–Euler inverse dynamics, regressor, and the flexmbs model built from them.

References are independent of the recursion: the flexmbs Cartesian equations of motion (Euler parameters, joint
constraints, multipliers) of the same tree; the Jacobian form ``Q = −Σ Jᵀ Fe`` of seed 004 eq. (5); orthogonality.
"""
import numpy as np
import pytest

from flexmbs.engine.system import System
from flexmbs.tree.dh import (DHTree, LinkParameters, dh_transform, external_generalized_forces, forward_kinematics,
                          inverse_dynamics, parameter_vector, parameters_from_vector, printed_rotation, regressor)
from flexmbs.tree.model import build_tree_model, implied_joint_forces, tree_coordinates

H = np.pi / 2
BASE = np.array([[0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]])  # DH base frame in global axes


def random_tree(rng, n=9):
    """A branched tree with revolute, prismatic and fixed joints and general DH parameters (γ, b ≠ 0)."""
    parent = [0] + [int(rng.integers(0, j)) for j in range(1, n)]
    sigma = [0, 1] + list(rng.choice([0, 0, 1, 2], size=n - 2))
    vals = rng.uniform(-1.0, 1.0, size=(6, n))
    return DHTree(parent, sigma, vals[0] * 2, vals[1] * 0.3, vals[2] * 2, vals[3] * 0.5, vals[4] * 2, vals[5] * 0.4)


def random_parameters(rng, n, elastic=True):
    mass = rng.uniform(1.0, 20.0, n)
    com = rng.uniform(-0.3, 0.3, (n, 3))
    J = np.empty((n, 3, 3))
    for k in range(n):
        # a physical inertia (the model refuses others: triangle inequality): four point masses and a sphere
        pts = 0.3 * rng.normal(size=(4, 3))
        jc = 0.5 * sum(p @ p * np.eye(3) - np.outer(p, p) for p in pts) + 0.05 * np.eye(3)
        c = com[k]
        J[k] = jc + mass[k] * (c @ c * np.eye(3) - np.outer(c, c))
    k = rng.uniform(0, 1e3, n) if elastic else None
    h = rng.uniform(0, 10, n) if elastic else None
    fs = rng.uniform(0, 5, n) if elastic else None
    return LinkParameters(mass, mass[:, None] * com, J, k, h, fs, friction_velocity=0.5)


def compactor_table(L=1.7, D=3.4):
    """Seed 004 Table 1 (as read in wave2-spec D.2): μ, σ, a, γ, b, α, d, θ, r (constant parts)."""
    rows = [(0, 1, 0, 0, 0, H, 0, H, 0), (0, 1, 1, 0, 0, H, 0, H, 0), (0, 1, 2, 0, 0, H, 0, 0, 0),
            (0, 0, 3, 0, 0, 0, 0, 0, 0), (0, 0, 4, 0, 0, -H, 0, 0, 0), (0, 0, 5, 0, 0, -H, 0, 0, 0),
            (1, 0, 6, 0, 0, -H, 0, 0, 0), (0, 1, 7, 0, 0, 0, 0, 0, 0), (0, 1, 8, 0, 0, H, 0, H, 0),
            (0, 0, 9, 0, 0, H, 0, 0, -L / 2), (0, 0, 9, 0, 0, H, 0, 0, L / 2), (1, 0, 10, 0, 0, 0, 0, 0, 0),
            (1, 0, 11, 0, 0, 0, 0, 0, 0), (1, 0, 10, 0, 0, 0, 0, 0, 0), (1, 0, 6, 0, D, -H, 0, 0, 0),
            (0, 0, 15, 0, 0, H, 0, 0, 0), (0, 1, 16, 0, 0, -H, 0, 0, 0), (0, 1, 17, 0, 0, H, 0, H, 0),
            (0, 0, 18, 0, 0, H, 0, 0, -L / 2), (0, 0, 18, 0, 0, H, 0, 0, L / 2), (1, 0, 19, 0, 0, 0, 0, 0, 0),
            (1, 0, 20, 0, 0, 0, 0, 0, 0), (1, 0, 20, 0, 0, 0, 0, 0, 0)]
    r = np.array(rows, dtype=float)
    return DHTree(r[:, 2], r[:, 1], r[:, 3], r[:, 4], r[:, 5], r[:, 6], r[:, 7], r[:, 8], r[:, 0])


def random_state(rng, n):
    return rng.uniform(-1.0, 1.0, n), rng.uniform(-2.0, 2.0, n), rng.uniform(-5.0, 5.0, n)


def test_corrected_eq1_is_orthogonal_printed_is_not(rng):
    """Seed 004 eq. (1): Rot(z,γ)Rot(x,α)Rot(z,θ) is orthogonal (1e-14, rounding); the printed row 2 is not."""
    g, a, t = rng.uniform(-np.pi, np.pi, (3, 50))
    A, _ = dh_transform(g, 0.0, a, 0.0, t, 0.0)
    assert np.abs(np.einsum("nji,njk->nik", A, A) - np.eye(3)).max() < 1e-14
    c, s = np.cos, np.sin
    rz = lambda x: np.array([[c(x), -s(x), 0], [s(x), c(x), 0], [0, 0, 1]])  # noqa: E731
    rx = lambda x: np.array([[1, 0, 0], [0, c(x), -s(x)], [0, s(x), c(x)]])  # noqa: E731
    assert np.abs(A[7] - rz(g[7]) @ rx(a[7]) @ rz(t[7])).max() < 1e-14
    B = printed_rotation(g, 0.0, a, 0.0, t, 0.0)
    defect = np.abs(np.einsum("nji,njk->nik", B, B) - np.eye(3)).max(axis=(1, 2))
    assert np.median(defect) > 0.1  # the sign error breaks orthogonality by O(1)


@pytest.mark.parametrize("which,axes", [("random", "link"), ("compactor", "link"), ("compactor", "global")])
def test_dh_kinematics_equals_flexmbs_markers(rng, which, axes):
    """Model built at q = 0, bodies moved to FK(q) for random q: every joint constraint holds and every flexmbs joint
    coordinate equals q_j, marker frames equal the DH frames (1e-12: rounding in a 23-link chain)."""
    tree = random_tree(rng) if which == "random" else compactor_table()
    params = random_parameters(rng, tree.n)
    tm = build_tree_model(tree, params, body_axes=axes)
    system = System(tm.model)
    for _ in range(3):
        q, qd, qdd = random_state(rng, tree.n)
        qc, vc, _ = tree_coordinates(tm, q, qd, qdd)
        ctx = system.context(qc, vc, 0.0)
        phi, _ = system.constraints(ctx)
        assert np.abs(phi).max() < 1e-12
        A0, P0 = forward_kinematics(tree, q)
        for j, marker in tm.frames.items():
            s = ctx.marker(marker)
            assert np.abs(s.x - P0[j - 1]).max() < 1e-12
            assert np.abs(s.R - A0[j - 1]).max() < 1e-12
        for j, joint in tm.joints.items():
            si, sj = ctx.marker(joint.marker_i), ctx.marker(joint.marker_j)
            value, _, _, rate = joint.coordinate(joint.default_coordinate(), si, sj)
            assert abs(value - q[j - 1]) < 1e-12
            assert abs(rate - qd[j - 1]) < 1e-11


@pytest.mark.parametrize("which,axes", [("random", "link"), ("compactor", "link"), ("random", "global")])
def test_newton_euler_equals_flexmbs_inverse_dynamics(rng, which, axes):
    """Γ of the recursion = joint loads that make the flexmbs model (Euler parameters, constraints, multipliers,
    elastic/friction force elements, gravity) follow (q, q̇, q̈); 1e-8 relative (the flexmbs solve is a least-squares
    of a ~300x300 system with condition ~1e6)."""
    tree = random_tree(rng) if which == "random" else compactor_table()
    params = random_parameters(rng, tree.n)
    g = np.array([0.3, -2.0, -9.81])
    tm = build_tree_model(tree, params, gravity=g, base_orientation=BASE, body_axes=axes)
    for _ in range(3):
        q, qd, qdd = random_state(rng, tree.n)
        gamma_ne = inverse_dynamics(tree, params, q, qd, qdd, gravity=g)
        gamma_mbs, misfit = implied_joint_forces(tm, q, qd, qdd)
        assert misfit < 1e-10
        moving = tree.sigma < 2
        scale = np.abs(gamma_ne[moving]).max()
        assert np.abs(gamma_ne[moving] - gamma_mbs[moving]).max() < 1e-8 * scale


def test_regressor_equals_recursion_and_is_linear(rng):
    """D_S X_S = Γ + Q (eq. 18) with Q = −Σ Jᵀ Fe from the Jacobians (eq. 5), 1e-10 relative (rounding);
    D_S does not depend on X_S and D_S (a X1 + b X2) = a D_S X1 + b D_S X2."""
    tree = compactor_table()
    g = np.array([0.0, 0.0, -9.81])
    for _ in range(3):
        params = random_parameters(rng, tree.n)
        q, qd, qdd = random_state(rng, tree.n)
        fe, me = rng.normal(size=(tree.n, 3)) * 100, rng.normal(size=(tree.n, 3)) * 30
        gamma = inverse_dynamics(tree, params, q, qd, qdd, gravity=g, f_ext=fe, m_ext=me)
        Q = external_generalized_forces(tree, q, fe, me)
        D = regressor(tree, q, qd, qdd, gravity=g, friction_velocity=params.friction_velocity)
        x = parameter_vector(params)
        lhs = gamma + Q
        assert np.abs(D @ x - lhs).max() < 1e-10 * np.abs(lhs).max()
        other = random_parameters(rng, tree.n)
        x2 = parameter_vector(other)
        mix = parameters_from_vector(1.7 * x - 0.4 * x2, friction_velocity=params.friction_velocity)
        g_mix = inverse_dynamics(tree, mix, q, qd, qdd, gravity=g)
        g1 = inverse_dynamics(tree, params, q, qd, qdd, gravity=g)
        g2 = inverse_dynamics(tree, other, q, qd, qdd, gravity=g)
        assert np.abs(g_mix - (1.7 * g1 - 0.4 * g2)).max() < 1e-10 * np.abs(g_mix).max()
