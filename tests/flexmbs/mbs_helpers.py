"""Test helpers: a hand-assembled 3D Euler–Bernoulli beam and its Craig–Bampton FlexBody (independent of fem/).

The beam lies along the body x axis from x = 0 to x = length with ``n_elements`` frame elements (6 dofs per node:
u, v, w, θx, θy, θz). The reduction follows seed 003 eq. (2-117..2-119) and (2-140..2-143): fixed-interface normal
modes plus constraint modes of the interface nodes, orthonormalized by the reduced eigenproblem, rigid modes removed.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from reduction.flexbody import FlexBody, Interface, compute_invariants


def beam_element(E, G, rho, area, iy, iz, length):
    """12x12 stiffness and consistent mass of a straight frame element along x."""
    L = length
    k = np.zeros((12, 12))
    m = np.zeros((12, 12))
    ea, gj = E * area / L, G * (iy + iz) / L
    for a, b, val in ((0, 6, ea), (3, 9, gj)):
        k[np.ix_([a, b], [a, b])] += val * np.array([[1, -1], [-1, 1]])
    kb = np.array([[12, 6 * L, -12, 6 * L], [6 * L, 4 * L * L, -6 * L, 2 * L * L],
                   [-12, -6 * L, 12, -6 * L], [6 * L, 2 * L * L, -6 * L, 4 * L * L]]) / L**3
    mb = rho * area * L / 420.0 * np.array([[156, 22 * L, 54, -13 * L], [22 * L, 4 * L * L, 13 * L, -3 * L * L],
                                             [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L * L, -22 * L, 4 * L * L]])
    flip = np.diag([1, -1, 1, -1])
    xy = [1, 5, 7, 11]  # v, θz
    xz = [2, 4, 8, 10]  # w, θy
    k[np.ix_(xy, xy)] += E * iz * kb
    k[np.ix_(xz, xz)] += E * iy * flip @ kb @ flip
    m[np.ix_(xy, xy)] += mb
    m[np.ix_(xz, xz)] += flip @ mb @ flip
    ma = rho * area * L / 6.0 * np.array([[2, 1], [1, 2]])
    mt = rho * (iy + iz) * L / 6.0 * np.array([[2, 1], [1, 2]])
    m[np.ix_([0, 6], [0, 6])] += ma
    m[np.ix_([3, 9], [3, 9])] += mt
    return k, m


def beam_matrices(length=0.5, n_elements=10, E=2.1e11, nu=0.3, rho=7850.0, width=0.02, height=0.02):
    """Global K, M (dense) and node positions (n, 3) of the beam."""
    area, iy, iz = width * height, width * height**3 / 12.0, height * width**3 / 12.0
    G = E / (2.0 * (1.0 + nu))
    n_nodes = n_elements + 1
    K = np.zeros((6 * n_nodes, 6 * n_nodes))
    M = np.zeros_like(K)
    ke, me = beam_element(E, G, rho, area, iy, iz, length / n_elements)
    for e in range(n_elements):
        dofs = np.arange(6 * e, 6 * e + 12)
        K[np.ix_(dofs, dofs)] += ke
        M[np.ix_(dofs, dofs)] += me
    positions = np.zeros((n_nodes, 3))
    positions[:, 0] = np.linspace(0.0, length, n_nodes)
    return K, M, positions


def cantilever_frequencies(K, M, n=3):
    """Frequencies (Hz) of the full FE beam clamped at node 0 (the independent reference)."""
    free = np.arange(6, K.shape[0])
    w2 = sla.eigh(K[np.ix_(free, free)], M[np.ix_(free, free)], eigvals_only=True, subset_by_index=[0, n - 1])
    return np.sqrt(w2) / (2.0 * np.pi)


def craig_bampton_flexbody(K, M, positions, interface_nodes=(0, -1), n_normal=4, name="beam", damping=0.0):
    """Orthonormalized Craig–Bampton FlexBody with interfaces ``end0``, ``end1`` at the given nodes."""
    n_nodes = positions.shape[0]
    nodes = [int(n) % n_nodes for n in interface_nodes]
    bdofs = np.concatenate([np.arange(6 * n, 6 * n + 6) for n in nodes])
    idofs = np.setdiff1d(np.arange(K.shape[0]), bdofs)
    kii, kib = K[np.ix_(idofs, idofs)], K[np.ix_(idofs, bdofs)]
    w2, phi = sla.eigh(kii, M[np.ix_(idofs, idofs)], subset_by_index=[0, n_normal - 1])
    psi = -np.linalg.solve(kii, kib)
    T = np.zeros((K.shape[0], n_normal + bdofs.size))
    T[np.ix_(idofs, np.arange(n_normal))] = phi
    T[np.ix_(idofs, np.arange(n_normal, T.shape[1]))] = psi
    T[bdofs, n_normal + np.arange(bdofs.size)] = 1.0
    kt, mt = T.T @ K @ T, T.T @ M @ T
    lam, N = sla.eigh(kt, mt)
    S_all = T @ N
    keep = np.argsort(lam)[6:]  # drop the six rigid modes (zero eigenvalues)
    S = S_all[:, keep]
    freqs = np.sqrt(np.abs(lam[keep])) / (2.0 * np.pi)
    tdofs = np.array([[6 * p, 6 * p + 1, 6 * p + 2] for p in range(n_nodes)])
    rdofs = tdofs + 3
    inv = compute_invariants(sp.csr_matrix(M), S, positions, tdofs, rdofs)
    m = S.shape[1]
    trans = S[tdofs.ravel()].reshape(n_nodes, 3, m)
    rots = S[rdofs.ravel()].reshape(n_nodes, 3, m)
    interfaces = [Interface(f"end{k}", node=n, spider="node") for k, n in enumerate(nodes)]
    return FlexBody(name=name, node_ids=np.arange(1, n_nodes + 1), positions=positions, translations=trans,
                    rotations=rots, has_rotation=np.ones(n_nodes, bool), frequencies_hz=freqs,
                    damping_ratios=np.full(m, damping), invariants=inv, interfaces=interfaces,
                    nodal_masses=np.diag(M)[tdofs[:, 0]], modal_stress=np.zeros((0, 6, m)))


def zero_crossing_times(t, x):
    """Times of sign changes of ``x`` by linear interpolation."""
    s = np.sign(x)
    idx = np.flatnonzero(s[:-1] * s[1:] < 0)
    return t[idx] - x[idx] * (t[idx + 1] - t[idx]) / (x[idx + 1] - x[idx])


def hexahedral_bar(length=0.3, side=0.01, nx=20, ny=2, nz=2):
    """A structured 8-node hexahedral fem.Mesh of a bar along x from 0 to ``length``, centred on the x axis."""
    from fem.meshing import structured_bar_mesh

    return structured_bar_mesh(length, side, side, nx, ny, nz, source="test bar")
