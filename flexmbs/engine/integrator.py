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

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla

from .jacobian import finite_difference_blocks

__all__ = ["GeneralizedAlpha", "StepState", "NewtonFailure"]


class NewtonFailure(Exception):
    """Raised inside a step when the Newton iteration does not converge (caught by the step-size control)."""

    def __init__(self, residual: np.ndarray, reason: str):
        super().__init__(reason)
        self.residual = residual
        self.reason = reason


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
class _Factorization:
    lu: tuple
    h: float
    age: int = 0


@dataclass
class GeneralizedAlpha:
    """The integrator; holds the coefficients, the cached Jacobian blocks and the statistics."""

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
        self._blocks = None
        self._fact: _Factorization | None = None
        sys_ = self.system
        self.n_q, self.n_z, self.n_c = sys_.n_q, sys_.n_z, sys_.n_c
        self._coordinate_scales()

    def _coordinate_scales(self) -> None:
        """Absolute tolerances per unknown and kind (see :func:`tolerance_kinds`), and which get ``rtol·|x|``."""
        kinds = tolerance_kinds(self.system, self.atol, self.tolerances, self.rtol)
        self._scale_q = kinds["scale_q"]
        self._modal = kinds["modal_groups"]
        self._rotation = kinds["rotation"]
        self._scale_z = kinds["scale_z"]
        self._amplitude = np.zeros(len(self._modal))  # running max |q_f| per flexible body, m·√kg

    def observe(self, s: StepState) -> None:
        """Update the running deformation amplitudes with an accepted state (the modal error reference)."""
        for k, idx in enumerate(self._modal):
            self._amplitude[k] = max(self._amplitude[k], float(np.max(np.abs(s.q[idx]))))

    def _q_scale(self, *qs) -> np.ndarray:
        """Error scale of ``q`` (n_q,), see :func:`tolerance_kinds`: the absolute tolerance of each kind; Euler
        parameters the tighter of that and ``atol + rtol·|p_i|`` (relative to small rotation angles); modal
        coordinates plus ``rtol`` × the body's deformation amplitude (running max of ``|q_f|``, including ``qs``)."""
        scale = self._scale_q.copy()
        rot = self._rotation
        if rot.size:
            size = np.max([np.abs(q[rot]) for q in qs], axis=0)
            scale[rot] = np.minimum(scale[rot], self.atol + self.rtol * size)
        for k, idx in enumerate(self._modal):
            size = max(float(np.max(np.abs(q[idx]))) for q in qs)
            scale[idx] += self.rtol * max(self._amplitude[k], size)
        return scale

    def _z_scale(self, *zs) -> np.ndarray:
        size = np.abs(zs[0]) if len(zs) == 1 else np.maximum(np.abs(zs[0]), np.abs(zs[1]))
        return self._scale_z + self.rtol * size

    # --- Jacobian ------------------------------------------------------------------------------------
    def refresh_jacobian(self, s: StepState) -> None:
        self._blocks = finite_difference_blocks(self.system, s.q, s.v, s.qdd, s.z, s.lam, s.t)
        self.stats["jacobian_evaluations"] += 1
        self.stats["residual_evaluations"] += self._blocks.evaluations
        self._fact = None

    def _factorize(self, h: float, mass: np.ndarray, jac: np.ndarray) -> None:
        b = self._blocks
        n_q, n_z, n_c = self.n_q, self.n_z, self.n_c
        c_m = (1.0 - self.alpha_m) / (1.0 - self.alpha_f)
        c_z = (1.0 - self.alpha_f) / (1.0 - self.alpha_m)
        bh2, gh = self.beta * h * h, self.gamma * h
        mat = np.zeros((n_q + n_z + n_c,) * 2)
        mat[:n_q, :n_q] = c_m * mass + gh * b.C + bh2 * b.K
        mat[:n_q, n_q + n_z:] = jac.T
        mat[n_q + n_z:, :n_q] = jac
        if n_z:
            mat[:n_q, n_q:n_q + n_z] = bh2 * b.Dz
            mat[n_q:n_q + n_z, :n_q] = -gh * c_z * (b.Gq + b.Gv * self.gamma / (self.beta * h))
            mat[n_q:n_q + n_z, n_q:n_q + n_z] = np.eye(n_z) - gh * c_z * b.Gz
        self._fact = _Factorization(sla.lu_factor(mat, check_finite=False), h)
        self.stats["factorizations"] += 1

    # --- one step ------------------------------------------------------------------------------------
    def step(self, s: StepState, h: float) -> tuple[StepState, int]:
        """Attempt the step ``t → t + h``; returns the new state and the Newton iteration count.

        Raises :class:`NewtonFailure` when the iteration does not converge with the current Jacobian.
        """
        am, af, g, b = self.alpha_m, self.alpha_f, self.gamma, self.beta
        n_q, n_z = self.n_q, self.n_z
        t1 = s.t + h
        a1 = (s.qdd - am * s.a) / (1.0 - am)  # predictor q̈_{n+1} = q̈_n
        qdd1 = s.qdd.copy()
        q1 = s.q + h * s.v + h * h * ((0.5 - b) * s.a + b * a1)
        v1 = s.v + h * ((1.0 - g) * s.a + g * a1)
        w1 = (s.zd - am * s.w) / (1.0 - am)  # predictor ż_{n+1} = ż_n
        z1 = s.z + h * ((1.0 - g) * s.w + g * w1)
        lam_s = s.lam * (b * h * h)
        z_base = s.z + h * (1.0 - g) * s.w
        beta_p = (1.0 - am) / ((1.0 - af) * b * h * h)
        gamma_p = g / (b * h)
        weights = 1.0 / self._q_scale(q1)
        z_weights = 1.0 / self._z_scale(z1) if n_z else np.zeros(0)
        previous = None
        for iteration in range(1, self.max_newton + 1):
            res, zdot, phi, jac, mass, _ = self.system.residual(q1, v1, qdd1, z1, lam_s / (b * h * h), t1)
            self.stats["residual_evaluations"] += 1
            w_new = ((1.0 - af) * zdot + af * s.zd - am * s.w) / (1.0 - am)
            rhs = -np.concatenate([b * h * h * res, z1 - z_base - h * g * w_new, phi])
            if not np.all(np.isfinite(rhs)):
                raise NewtonFailure(rhs, "non-finite residual")
            if iteration == 1:  # fresh M(q) and Φ_q each step (cheap); K, C blocks are reused across steps
                self._factorize(h, mass, jac)
            delta = sla.lu_solve(self._fact.lu, rhs, check_finite=False)
            if not np.all(np.isfinite(delta)):
                raise NewtonFailure(rhs, "non-finite Newton update (singular or overflowing iteration matrix)")
            dq, dz = delta[:n_q], delta[n_q:n_q + n_z]
            q1 += dq
            v1 += gamma_p * dq
            qdd1 += beta_p * dq
            z1 += dz
            lam_s += delta[n_q + n_z:]
            norm = np.sqrt((np.sum((dq * weights) ** 2) + np.sum((dz * z_weights) ** 2)) / max(1, n_q + n_z))
            self.stats["newton_iterations"] += 1
            small_phi = np.max(np.abs(phi), initial=0.0) < 1e-6
            if norm < 1e-3 and small_phi:
                break
            if previous is not None:
                rate = norm / previous
                if rate < 1.0 and norm * rate / (1.0 - rate) < 3e-2 and small_phi:
                    break
                if rate > 0.9 and norm > 1e-2:
                    raise NewtonFailure(rhs, "diverging")
            previous = norm
        else:
            raise NewtonFailure(rhs, "too many iterations")
        w1 = (z1 - z_base) / (h * g) if n_z else w1
        zd1 = ((1.0 - am) * w1 + am * s.w - af * s.zd) / (1.0 - af) if n_z else s.zd
        a1 = a1 + (1.0 - af) / (1.0 - am) * (qdd1 - s.qdd)
        new = StepState(t1, q1, v1, a1, qdd1, z1, zd1, w1, lam_s / (b * h * h), s.zd, h)
        return new, iteration

    def error_norm(self, old: StepState, new: StepState, h: float) -> float:
        """Weighted RMS of the local error estimate (accept the step when ≤ 1); see :meth:`error_vector`."""
        errors = self.error_vector(old, new, h)
        return float(np.sqrt(np.sum(errors**2) / errors.size)) if errors.size else 0.0

    def relative_change(self, old: StepState, new: StepState) -> np.ndarray:
        """Change of each unknown over a step, in units of its tolerance (n_q + n_z,)."""
        dq = (new.q - old.q) / self._q_scale(old.q)
        dz = (new.z - old.z) / self._z_scale(old.z)
        return np.concatenate([dq, dz])

    def error_vector(self, old: StepState, new: StepState, h: float) -> np.ndarray:
        """Weighted local error estimates (n_q + n_z,), in units of the tolerance."""
        # the pseudo-acceleration a is free of the parasitic (-α_f/(1-α_f))^n oscillation that index-3
        # multipliers leave in q̈, so its increment is the cleaner third-derivative estimate
        e_q = h * h * abs(self.beta - 1.0 / 6.0) * (new.a - old.a)
        errors = [e_q / self._q_scale(old.q, new.q)]
        if self.n_z:
            if old.zd_previous is not None and old.h_previous > 0.0:
                # ż_{n+1} minus its linear extrapolation ≈ h² z⃛; the local error of the state update is O(h³ z⃛)
                # (second order, checked); the constant 1/2 is conservative (a trapezoid rule has 1/12)
                extrapolated = old.zd + (old.zd - old.zd_previous) * (h / old.h_previous)
                e_z = h / 2.0 * (new.zd - extrapolated)
            else:
                e_z = h / 6.0 * (new.zd - old.zd)
            errors.append(e_z / self._z_scale(old.z, new.z))
        return np.concatenate(errors)


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
            rotation.append(np.arange(o + 3, o + 7))
        if body.n_modes:
            idx = np.arange(o + 7, o + body.n_coordinates)
            phi_max = np.abs(body.node_translations).max(axis=(0, 1))
            phi_max[phi_max == 0.0] = 1.0
            scale_q[idx] = tol.get("deflection", atol) / phi_max
            modal.append(idx)
    units = []
    for element in system.elements:
        units += list(getattr(element, "state_units", [""] * len(element.state_names)))
    scale_z = np.array([tol.get(u, atol * STATE_ATOL_FACTOR.get(u, 1.0)) for u in units[:system.n_z]])
    rotation = np.concatenate(rotation) if rotation else np.zeros(0, dtype=int)
    return {"scale_q": scale_q, "modal_groups": modal, "scale_z": scale_z, "rotation": rotation}


def _body_extents(system) -> list[float]:
    """Largest distance (m) of each body's markers and nodes from its frame origin (at least 1 mm)."""
    extent = [1e-3] * len(system.bodies)
    for marker in system.model.markers:
        if not marker.on_ground:
            k = marker.body.index
            extent[k] = max(extent[k], float(np.linalg.norm(marker.local_position)))
    for k, body in enumerate(system.bodies):
        if body.n_modes:
            extent[k] = max(extent[k], float(np.linalg.norm(body.node_positions, axis=1).max()))
    return extent
