"""Generalized-α time integration of the index-3 DAE with state elements (Arnold & Brüls 2007 form).

Second-order part (positions ``q``)::

    q_{n+1} = q_n + h q̇_n + h² (½ - β) a_n + h² β a_{n+1}
    q̇_{n+1} = q̇_n + h (1 - γ) a_n + h γ a_{n+1}
    (1 - α_m) a_{n+1} + α_m a_n = (1 - α_f) q̈_{n+1} + α_f q̈_n
    M(q_{n+1}) q̈_{n+1} + Φ_qᵀ λ_{n+1} = Q(t_{n+1}, ...),   Φ(q_{n+1}, t_{n+1}) = 0

First-order part (states ``z``, same coefficients, pseudo-rate ``w``)::

    z_{n+1} = z_n + h (1 - γ) w_n + h γ w_{n+1},   (1 - α_m) w_{n+1} + α_m w_n = (1 - α_f) ż_{n+1} + α_f ż_n

with ``α_m = (2ρ∞ - 1)/(ρ∞ + 1)``, ``α_f = ρ∞/(ρ∞ + 1)``, ``γ = ½ + α_f - α_m``, ``β = ¼ (γ + ½)²``. Newton unknowns
``(Δq, Δz, Δλ̃)`` with the scaling ``λ̃ = β h² λ`` and the equations of motion multiplied by ``β h²`` (Bottasso,
Bauchau & Cardona), so the iteration matrix is ``[M c_m + γ h C + β h² K, β h² D_z, Φ_qᵀ; ...; Φ_q, 0, 0]``.
The local error is estimated with ``h² |β - 1/6| |q̈_{n+1} - q̈_n|`` (Zienkiewicz & Xie) for ``q`` and
``h/2 |ż_{n+1} - ż_extrapolated|`` (≈ h³ z⃛ / 2) for ``z``, each in units of its tolerance (per kind of unknown,
:func:`tolerance_kinds`); steps are rejected and shrunk when the RMS exceeds 1 or Newton fails.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["GeneralizedAlpha", "StepState", "NewtonFailure"]


@dataclass
class NewtonFailure:
    """A Newton iteration that did not converge at the smallest step: its last residual and why
    (:func:`flexmbs.engine.equations.newton_message` names the worst equation)."""

    residual: np.ndarray
    reason: str


@dataclass
class StepState:
    t: float
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray  # pseudo-acceleration
    qdd: np.ndarray
    z: np.ndarray
    zd: np.ndarray
    w: np.ndarray  # pseudo-rate of z
    lam: np.ndarray
    zd_previous: np.ndarray | None = None  # ż one step back (for the third-order error estimate of z)
    h_previous: float = 0.0


@dataclass
class GeneralizedAlpha:
    """The integrator's coefficients, error scales and statistics; the step itself is compiled
    (:func:`flexmbs.engine.loop.advance`, the algorithm of the module docstring)."""

    system: object
    rho_inf: float = 0.8
    rtol: float = 1e-4
    atol: float = 1e-6
    max_newton: int = 8
    tolerances: dict | None = None
    stats: dict = field(default_factory=lambda: {"newton_iterations": 0, "jacobian_evaluations": 0,
                                                 "factorizations": 0, "residual_evaluations": 0})

    def __post_init__(self):
        r = self.rho_inf
        self.alpha_m = (2.0 * r - 1.0) / (r + 1.0)
        self.alpha_f = r / (r + 1.0)
        self.gamma = 0.5 + self.alpha_f - self.alpha_m
        self.beta = 0.25 * (self.gamma + 0.5) ** 2
        # absolute tolerances per unknown and kind (see :func:`tolerance_kinds`), and which get ``rtol·|x|``
        kinds = tolerance_kinds(self.system, self.atol, self.tolerances, self.rtol)
        self._scale_q, self._modal = kinds["scale_q"], kinds["modal_groups"]
        self._rotation, self._scale_z = kinds["rotation"], kinds["scale_z"]

    def _q_scale(self, q) -> np.ndarray:
        """Error scale of ``q`` (n_q,) at the start (:func:`flexmbs.engine.preflight.check_tolerances_resolvable`;
        the compiled step's own is :func:`flexmbs.engine.loop._scale_q`), see :func:`tolerance_kinds`: the absolute
        tolerance of each kind; Euler parameters the tighter of that and ``atol + rtol·|p_i|`` (relative to small
        rotation angles); modal coordinates plus ``rtol`` × the body's deformation amplitude (``max|q_f|``)."""
        scale = self._scale_q.copy()
        rot = self._rotation
        if rot.size:
            scale[rot] = np.minimum(scale[rot], self.atol + self.rtol * np.abs(q[rot]))
        for idx in self._modal:
            scale[idx] += self.rtol * float(np.max(np.abs(q[idx])))
        return scale

    def _z_scale(self, z) -> np.ndarray:
        return self._scale_z + self.rtol * np.abs(z)


# Default absolute tolerances of element states by unit, as multiples of ``atol`` (atol = 1e-6 → 100 Pa, 1e-6 for
# spool positions, ...). A pressure error of 100 Pa (1 mbar) is negligible against working pressures of 1-300 bar and
# equals rtol·|p| at 1 MPa for rtol = 1e-4; the former 1e-6 Pa made near-tank pressures limit the step.
STATE_ATOL_FACTOR = {"Pa": 1e8}


def tolerance_kinds(system, atol: float, tolerances: dict | None = None, rtol: float = 1e-4) -> dict:
    """Absolute error scales per unknown, by kind.

    * frame translations ``r``: ``tolerances["position"]`` m (default ``atol``), absolute only: the size of a
      position depends on where the origin is, so ``rtol·|r|`` (the former rule) let a rod 0.35 m off the origin
      move 1e-4 m per step at rtol = 3e-4 (piston-pin force error 60 × Exudyn's, benchmarks/race_exudyn.py);
    * Euler parameters: ``tolerances["rotation"]`` rad (``δp ≈ δθ/2``); by default the tighter of ``atol / L``
      (``atol`` metres at the body's farthest marker or node, L ≥ 1 mm its extent) and the former
      ``atol + rtol·|p_i|`` (which follows small rotation angles relatively);
    * modal coordinates: ``tolerances["deflection"]`` m of nodal deflection (default ``atol``) divided by the
      mode's largest nodal translation (m per m·√kg), plus ``rtol`` × the body's running deformation amplitude
      (added by the integrator);
    * element states: ``tolerances[unit]`` in the state's unit (default ``atol`` × STATE_ATOL_FACTOR[unit], or
      ``atol``), plus ``rtol·|z|``.
    """
    tol = dict(tolerances or {})
    n_q = system.n_q
    scale_q, modal, rotation = np.empty(n_q), [], []
    extent = _body_extents(system)
    for body, length in zip(system.bodies, extent):
        o = body.offset
        scale_q[o:o + 3] = tol.get("position", atol)
        scale_q[o + 3:o + 7] = 0.5 * tol.get("rotation", atol / length)
        if "rotation" not in tol:
            rotation += range(o + 3, o + 7)
        if body.n_modes:
            idx = np.arange(o + 7, o + body.n_coordinates)
            phi_max = np.abs(body.node_translations).max(axis=(0, 1))
            phi_max[phi_max == 0.0] = 1.0
            scale_q[idx] = tol.get("deflection", atol) / phi_max
            modal.append(idx)
    units = []
    for element in system.elements:
        found = getattr(element, "state_units", None)  # (the default only asks for the names when needed)
        units += list(found) if found is not None else [""] * len(element.state_names)
    scale_z = np.array([tol.get(u, atol * STATE_ATOL_FACTOR.get(u, 1.0)) for u in units[:system.n_z]])
    rotation = np.array(rotation, dtype=np.int64)
    return {"scale_q": scale_q, "modal_groups": modal, "scale_z": scale_z, "rotation": rotation}


def _body_extents(system) -> list[float]:
    """Largest distance (m) of each body's markers and nodes from its frame origin (at least 1 mm); found once per
    system (the integrators of a run and its tolerance check read it)."""
    found = getattr(system, "_body_extents", None)
    if found is not None and len(found) == len(system.bodies):
        return list(found)
    extent = [1e-3] * len(system.bodies)
    for marker in system.model.markers:
        if not marker.on_ground:
            k = marker.body.index
            x = marker.local_position
            extent[k] = max(extent[k], math.sqrt(x.dot(x)))  # np.linalg.norm's own sum, without its call
    for k, body in enumerate(system.bodies):
        if body.n_modes:
            extent[k] = max(extent[k], float(np.linalg.norm(body.node_positions, axis=1).max()))
    system._body_extents = tuple(extent)
    return extent
