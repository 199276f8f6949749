"""Compile the engine before a user waits for it (issue 42): one short run of a small model that uses every part of
the compiled step.

The compiled step's types do not depend on the model (element kernels are called through addresses held in
arrays), so one model with a flexible body, rigid bodies, a prescribed and a free joint, a force element and a
point load compiles everything a case needs from the engine: :func:`flexmbs.engine.compiled_loop.advance`, the
functions it calls and the kernels the Python start calls. ``python -m flexmbs_jit.build`` runs :func:`warm_up`
when the package is built; a case's own kernels compile when their modules are imported.

The beam is a hand-made floating-frame body: two Euler–Bernoulli frame elements reduced to two elastic modes by
the orthonormalized Craig–Bampton of seed 003 eq. (2-140..2-143), numpy and scipy only (no mesh, no file).
"""
from __future__ import annotations

import warnings

import numpy as np

__all__ = ["warm_up", "small_beam"]


def _frame_element(length: float, E: float = 2.1e11, G: float = 8.1e10, rho: float = 7850.0,
                   area: float = 4e-4, second_moment: float = 1.3e-8) -> tuple[np.ndarray, np.ndarray]:
    """12×12 stiffness and lumped-plus-rotary mass of a straight frame element along x (square section)."""
    L, I = length, second_moment
    k = np.zeros((12, 12))
    for a, b, value in ((0, 6, E * area / L), (3, 9, G * 2 * I / L)):
        k[np.ix_([a, b], [a, b])] += value * np.array([[1.0, -1.0], [-1.0, 1.0]])
    bend = E * I / L**3 * np.array([[12, 6 * L, -12, 6 * L], [6 * L, 4 * L * L, -6 * L, 2 * L * L],
                                    [-12, -6 * L, 12, -6 * L], [6 * L, 2 * L * L, -6 * L, 4 * L * L]])
    flip = np.diag([1.0, -1.0, 1.0, -1.0])
    k[np.ix_([1, 5, 7, 11], [1, 5, 7, 11])] += bend
    k[np.ix_([2, 4, 8, 10], [2, 4, 8, 10])] += flip @ bend @ flip
    half = 0.5 * rho * area * L
    m = np.diag(np.tile([half, half, half, rho * 2 * I * L / 2, rho * I * L / 2, rho * I * L / 2], 2))
    return k, m


def small_beam(length: float = 0.6, n_elements: int = 2, n_modes: int = 2):
    """A :class:`reduction.flexbody.FlexBody` of a steel beam along x with interfaces ``end0`` and ``end1``."""
    import scipy.linalg as sla
    import scipy.sparse as sp

    from reduction.flexbody import FlexBody, Interface, compute_invariants

    n_nodes = n_elements + 1
    K = np.zeros((6 * n_nodes, 6 * n_nodes))
    M = np.zeros_like(K)
    ke, me = _frame_element(length / n_elements)
    for e in range(n_elements):
        dofs = np.arange(6 * e, 6 * e + 12)
        K[np.ix_(dofs, dofs)] += ke
        M[np.ix_(dofs, dofs)] += me
    positions = np.zeros((n_nodes, 3))
    positions[:, 0] = np.linspace(0.0, length, n_nodes)
    boundary = np.r_[0:6, 6 * n_elements:6 * n_nodes]
    inner = np.setdiff1d(np.arange(K.shape[0]), boundary)
    k_ii = K[np.ix_(inner, inner)]
    _, phi = sla.eigh(k_ii, M[np.ix_(inner, inner)], subset_by_index=[0, n_modes - 1])
    T = np.zeros((K.shape[0], n_modes + boundary.size))
    T[np.ix_(inner, np.arange(n_modes))] = phi
    T[np.ix_(inner, np.arange(n_modes, T.shape[1]))] = -np.linalg.solve(k_ii, K[np.ix_(inner, boundary)])
    T[boundary, n_modes + np.arange(boundary.size)] = 1.0
    eigenvalues, N = sla.eigh(T.T @ K @ T, T.T @ M @ T)
    order = np.argsort(eigenvalues)[6:6 + n_modes]  # the six rigid-body modes removed
    S = (T @ N)[:, order]
    translations = np.array([[6 * p, 6 * p + 1, 6 * p + 2] for p in range(n_nodes)])
    invariants = compute_invariants(sp.csr_matrix(M), S, positions, translations, translations + 3)
    return FlexBody(name="warm-up beam", node_ids=np.arange(1, n_nodes + 1), positions=positions,
                    translations=S[translations.ravel()].reshape(n_nodes, 3, n_modes),
                    rotations=S[(translations + 3).ravel()].reshape(n_nodes, 3, n_modes),
                    has_rotation=np.ones(n_nodes, bool),
                    frequencies_hz=np.sqrt(np.abs(eigenvalues[order])) / (2.0 * np.pi),
                    damping_ratios=np.full(n_modes, 0.01), invariants=invariants,
                    interfaces=[Interface("end0", node=0, spider="node"),
                                Interface("end1", node=n_nodes - 1, spider="node")],
                    nodal_masses=np.diag(M)[translations[:, 0]], modal_stress=np.zeros((0, 6, n_modes)))


def warm_up(t_end: float = 0.002) -> dict:
    """Run the small model on the compiled step for ``t_end`` (s); returns the run's statistics."""
    from flexmbs.model.forces import JointActuator, PointForce, SpringDamper
    from flexmbs.model.model import Model

    from .solver import simulate

    model = Model("warm-up", gravity=(0.0, -9.81, 0.0))
    beam = model.add_flexible_body("beam", small_beam())
    hub = model.add_joint("revolute", model.add_marker(model.ground, "hub"),
                          model.add_marker(beam, "root", node="end0"), name="hub")
    model.add_force(JointActuator(hub, 5.0, name="torque"))
    weight = model.add_rigid_body("weight", mass=2.0, inertia=(0.01, 0.01, 0.01), position=(0.7, 0.0, 0.0))
    model.add_joint("spherical", model.add_marker(beam, "tip", node="end1"),
                    model.add_marker(weight, "weight.pin", position=(-0.1, 0.0, 0.0)), name="pin")
    model.add_force(SpringDamper(model.add_marker(model.ground, "anchor", position=(0.7, 0.5, 0.0)),
                                 model.add_marker(weight, "weight.eye"), stiffness=100.0, damping=1.0,
                                 free_length=0.5, name="spring"))
    model.add_force(PointForce(model.add_marker(weight, "weight.load"), force=lambda t: (0.0, 0.0, 1.0 + t),
                               name="load"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = simulate(model, t_end, engine="compiled", progress=False)
    return dict(res.statistics)
