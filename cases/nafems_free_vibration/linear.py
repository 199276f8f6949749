"""``flexmbs linearize nafems-free-vibration``: the benchmark's structure as one flexible body of flexmbs, linearized.

Each benchmark's FE model (:func:`.benchmarks.build`) becomes a reduced flexible body whose basis is the structure's
own normal modes, so that the linearization reproduces the benchmark's frequencies through the whole multibody
route (reduced body → compiled residual → differences → minimal coordinates):

* **FV12**, the free plate: the free–free basis of :func:`reduction.reduce` (no interfaces; the rigid-body modes
  removed, the elastic ones mass-orthogonal to them) on a floating frame with no joint and no gravity. The
  linearization has ``±i ω_k`` of the body's elastic modes and twelve zero eigenvalues: the six rigid-body motions
  of the frame (position and Euler parameters, minus the normalization row), each a double zero.
* **FV22, FV32, FV52, FV52-hard** (supported structures): the basis is the structure's normal modes *with its
  supports* (:func:`fem.analysis.modal_analysis` with the benchmark's supports, mass-normalized), the floating
  frame is welded to the ground (a fixed joint at the frame origin), so ``M_ff = I``, ``K_ff = diag(ω²)`` and the
  eigenvalues are ``±i ω_k``; FV52's line support leaves the three in-plane rigid motions free, which come out as
  three zero-frequency modes (six zero eigenvalues).

The frequencies are the FE model's (to the eigen-solver's accuracy), so the NAFEMS comparison of
:mod:`.validation` holds for the linearization as well (tests/linear/test_linearize_cases.py).
"""
from __future__ import annotations

import tempfile

import numpy as np

__all__ = ["linearization", "free_body", "supported_body", "body_model", "target_indices"]


def free_body(fe_model, n_modes: int, name: str = "structure"):
    """The free–free reduced body of ``fe_model`` on its lowest ``n_modes`` elastic modes (:func:`reduction.reduce`
    without interfaces)."""
    from reduction import reduce

    return reduce(fe_model, {}, n_modes, name=name, stress_field=None)


def supported_body(fe_model, supports, n_modes: int, name: str = "structure"):
    """A reduced body whose basis is the lowest ``n_modes`` normal modes of ``fe_model`` held by ``supports``
    (``fixed_nodes`` of :func:`fem.analysis.modal_analysis`), mass-normalized: ``K_ff = diag(ω²)``, ``M_ff = I``.

    Rigid-body modes the supports leave free (|f| ≪ the first elastic one) get frequency 0. The body is meant to
    have its frame welded to the ground (:func:`body_model` with ``welded=True``)."""
    from fem.analysis import modal_analysis
    from fem.mesh import boundary_triangles
    from reduction.flexbody import FlexBody, compute_invariants

    result = modal_analysis(fe_model, n_modes, supports)
    modes = np.asarray(result.modes)
    hz = np.asarray(result.frequencies_hz, dtype=float)
    hz = np.where(np.abs(hz) < 1e-3 * np.abs(hz).max(), 0.0, np.abs(hz))
    rotation_dofs = fe_model.rotation_dofs if np.any(fe_model.rotation_dofs >= 0) else None
    invariants = compute_invariants(fe_model.full_mass, modes, fe_model.positions, fe_model.translation_dofs,
                                    rotation_dofs)
    translations = modes[fe_model.translation_dofs]  # (n_nodes, 3, m)
    has_rotation = fe_model.rotation_dofs[:, 0] >= 0
    rotations = np.zeros(translations.shape)
    rotations[has_rotation] = modes[fe_model.rotation_dofs[has_rotation]]
    surface = boundary_triangles(fe_model.mesh) if fe_model.mesh is not None else np.zeros((0, 3), dtype=np.int64)
    return FlexBody(name=name, node_ids=fe_model.node_ids.copy(), positions=fe_model.positions.copy(),
                    translations=translations, rotations=rotations, has_rotation=has_rotation, frequencies_hz=hz,
                    damping_ratios=np.zeros(hz.size), invariants=invariants, nodal_masses=fe_model.nodal_masses(),
                    surface=surface, report={"basis": "supported normal modes", "reduced_hz": hz})


def body_model(flexbody, welded: bool):
    """A flexmbs model of the one body, no gravity; ``welded``: its frame fixed to the ground at the frame origin."""
    from flexmbs import Model

    model = Model("nafems-free-vibration", gravity=(0.0, 0.0, 0.0))
    body = model.add_flexible_body("structure", flexbody)
    if welded:
        model.add_joint("fixed", model.add_marker(model.ground, "base"), model.add_marker(body, "frame"),
                        name="weld")
    return model


def target_indices(name: str, flexbody) -> np.ndarray:
    """Indices into the body's modes of the benchmark's NAFEMS target modes (in the order of the targets)."""
    from .benchmarks import TARGET_MODES

    hz = np.asarray(flexbody.frequencies_hz)
    if name == "fv12":
        return np.arange(6)  # the free–free basis holds the elastic modes only: NAFEMS modes 4-9
    return TARGET_MODES[name](np.asarray(flexbody.translations).reshape(-1, hz.size), hz)


def build_body(name: str, refinement: int = 1):
    """``(flexbody, welded)`` of a benchmark (see the module docstring)."""
    from .benchmarks import build

    with tempfile.TemporaryDirectory(prefix="nafems-") as folder:
        fe_model, supports, n_modes, _ = build(name, refinement, folder)
        if supports is None:
            return free_body(fe_model, n_modes - 6), False
        return supported_body(fe_model, supports, n_modes), True


def linearization(p: dict) -> dict:
    """The hook's dict for the case's parameters ``p`` (``DEFAULTS`` merged with the ``--set`` values, by
    :func:`cases.nafems_free_vibration.linearization`): the benchmark's structure as one flexible body about its
    undeformed rest state (``at="static"``: no load, the rest state is the equilibrium); output the first elastic
    coordinate. ``--set benchmark=fv12`` gives the free plate (twelve zero eigenvalues)."""
    flexbody, welded = build_body(p["benchmark"], int(p["refinement"]))
    return {"model": body_model(flexbody, welded), "at": "static", "inputs": {},
            "outputs": {"q1": "body/structure/modal_coordinates/q1"}}
