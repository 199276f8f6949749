"""The linearized model: state space ``(A, B, C, D)`` with names and units, eigen-analysis, transfer functions,
conversion to ``scipy.signal`` / python-control, files, and mode shapes as VTK series.

Eigen-analysis (seed 002 §4.4, Table 3): for each eigenvalue ``λ = σ ± iω`` the frequency ``f = |ω|/2π`` (Hz), the
damping ratio ``ζ = -σ/|λ|`` and the time constant ``τ = -1/σ`` (s). Mode shapes ``X_k`` are expanded to all
coordinates with ``q̃ = T θ̃``. Participation of a mode in the states (bodies, elastic modes, element states) uses
the participation factors ``p_ik = |ψ_ki φ_ik|`` (left and right eigenvectors; dimensionless, summing to 1 over
the states, independent of units and scaling); the share of the mechanical states is split among bodies' rigid
motion and elastic modes in proportion to their mass-weighted amplitudes (kinetic-energy shares of the mode shape).
"""
from __future__ import annotations

import html
import io
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla

from fem.errors import FlexmbsError, ModelError

__all__ = ["LinearModel", "EigenAnalysis", "transfer_summary"]

UNDAMPED = 1e-6  # |Re λ| below this times |λ| prints as undamped (the differences' round-off)
SUMMARY_ROWS = 16  # eigenvalue rows printed by print(lin): one screen
NEAR_ORIGIN = 1e-6  # a pole and a zero both this close to s = 0 (relative to max|λ|) cancel: s/s
ZERO_TOL = 1e-9  # |λ| below ZERO_TOL · max|λ| counts as a zero eigenvalue (rigid-body or conserved mode)


@dataclass
class EigenAnalysis:
    """Eigenvalues (sorted by |λ|, then by imaginary part), frequencies, damping, modes and participation."""

    eigenvalues: np.ndarray
    frequency_hz: np.ndarray
    damping_ratio: np.ndarray
    time_constant_s: np.ndarray
    modes: np.ndarray  # (n_x, n_x) right eigenvectors, columns, normalized to unit largest entry
    participation: list  # per mode: list of (label, share) sorted by share, shares sum to 1

    def rows(self, top: int = 3) -> list[dict]:
        """One dict per eigenvalue: ``re, im, f_hz, zeta, tau_s, participants`` (JSON-able)."""
        return [{"re": float(lam.real), "im": float(lam.imag), "f_hz": float(self.frequency_hz[k]),
                 "zeta": _finite(self.damping_ratio[k]), "tau_s": _finite(self.time_constant_s[k]),
                 "participants": [[lbl, float(s)] for lbl, s in self.participation[k][:top]]}
                for k, lam in enumerate(self.eigenvalues)]


def _finite(x):
    return float(x) if np.isfinite(x) else None


@dataclass(repr=False)
class LinearModel:
    """``Ẋ̃ = A X̃ + B ũ``, ``ỹ = C X̃ + D ũ`` about an operating point (tilde: deviation from it).

    ``X̃ = (θ̃, θ̇̃, z̃)``: minimal coordinates, their rates, the state elements' states (seed 002 eq. (64)).
    ``transformation`` is ``T`` (n_q, k) with ``q̃ = T θ̃``; ``velocity_transformation`` is ``V̿ T`` with
    ``q̇̃ = T θ̇̃ + V̿ T θ̃``.
    """

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    state_names: list
    state_units: list
    input_names: list
    input_units: list
    output_names: list
    output_units: list
    operating_point: object = None
    output_values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    transformation: np.ndarray | None = None
    velocity_transformation: np.ndarray | None = None
    system: object = None
    method: str = "minimal"
    info: dict = field(default_factory=dict)

    # --- a short summary: print(lin), and a table in notebooks -------------------------------------------
    def summary(self, max_rows: int = SUMMARY_ROWS) -> str:
        """Sizes, inputs and outputs, and the eigenvalue table (one row per real eigenvalue or conjugate pair:
        f, ζ, τ and the three largest participants; zero eigenvalues named free directions of the bodies or neutral
        directions of the states, :func:`zero_mode_kind`),
        at most ``max_rows`` rows (the lowest |λ|); ``eigen().rows()`` has all of them."""
        return "\n".join(_summary_lines(self, max_rows))

    def __repr__(self) -> str:
        return self.summary()

    __str__ = __repr__

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.summary())}</pre>"

    # --- basic properties ------------------------------------------------------------------------------
    @property
    def n_states(self) -> int:
        return self.A.shape[0]

    @property
    def n_minimal(self) -> int:
        return 0 if self.transformation is None else self.transformation.shape[1]

    def eigenvalues(self) -> np.ndarray:
        return _sorted(np.linalg.eigvals(self.A))

    def eigen(self) -> EigenAnalysis:
        """Eigenvalues with frequency, damping ratio, time constant, modes and participation."""
        lam, vec = np.linalg.eig(self.A)
        order = _order(lam)
        lam, vec = lam[order], vec[:, order]
        try:
            left = np.linalg.inv(vec)  # rows: left eigenvectors with ψ φ = 1
        except np.linalg.LinAlgError:
            left = np.linalg.pinv(vec)
        scale = np.abs(lam).max(initial=0.0)
        zero = np.abs(lam) < ZERO_TOL * max(scale, 1e-300)
        with np.errstate(divide="ignore", invalid="ignore"):
            freq = np.abs(lam.imag) / (2.0 * np.pi)
            zeta = np.where(zero, np.nan, -lam.real / np.abs(lam))
            tau = np.where(lam.real < 0.0, -1.0 / lam.real, np.inf)
        tau = np.where(zero, np.inf, tau)
        big = np.argmax(np.abs(vec), axis=0)
        vec = vec / vec[big, np.arange(vec.shape[1])]  # unit largest entry: no dependence on eigensolver phases
        participation = [self._participation(vec[:, k], left[k] * vec[big[k], k]) for k in range(lam.size)]
        return EigenAnalysis(lam, freq, zeta, tau, vec, participation)

    # --- participation -----------------------------------------------------------------------------------
    def _participation(self, right: np.ndarray, left: np.ndarray) -> list:
        factors = np.abs(left * right)
        total = factors.sum()
        if total == 0.0:
            return []
        factors = factors / total
        k = self.n_minimal
        shares: dict[str, float] = {}
        mechanical = factors[:2 * k].sum()
        if k and mechanical > 0.0 and self.system is not None:
            for label, share in self._mechanical_split(right[:k]).items():
                shares[label] = shares.get(label, 0.0) + mechanical * share
        elif k:
            for i in range(2 * k):
                shares[self.state_names[i % k]] = shares.get(self.state_names[i % k], 0.0) + factors[i]
        for i in range(2 * k, self.n_states):
            shares[self.state_names[i]] = shares.get(self.state_names[i], 0.0) + factors[i]
        return sorted(shares.items(), key=lambda kv: -kv[1])

    def _mechanical_split(self, theta: np.ndarray) -> dict[str, float]:
        """Shares of bodies (rigid motion) and their elastic modes in a mechanical shape ``θ`` (sum 1): the
        mass-weighted amplitude ``q̃_rᴴ M_rr q̃_r`` of each body's frame coordinates and ``M_jj |q̃_fj|²`` of
        each elastic coordinate (kinetic energy of the mode shape per part, the rigid-elastic coupling terms left
        out)."""
        system = self.system
        shape = self.transformation @ theta
        ctx = system.context(self.operating_point.q, self.operating_point.v, self.operating_point.t)
        mass = system.mass_matrix(ctx)
        out = {}
        for body in system.bodies:  # rigid-motion and elastic blocks of the body's mass matrix, couplings left out
            o = body.offset
            rigid = shape[o:o + 7]
            out[f"body {body.name}"] = float(np.real(np.conj(rigid) @ mass[o:o + 7, o:o + 7] @ rigid))
            for j in range(body.n_modes):
                out[f"body {body.name} mode {j + 1}"] = float(mass[o + 7 + j, o + 7 + j] * abs(shape[o + 7 + j]) ** 2)
        total = sum(out.values())
        return {key: val / total for key, val in out.items() if val > 0.0} if total > 0 else {}

    def mode_shape(self, index: int) -> dict:
        """Mode ``index`` (into :meth:`eigen` order) expanded to all coordinates: ``q`` (n_q,), ``v`` (n_q,),
        ``z`` (n_z,), complex, largest state entry 1."""
        analysis = self.eigen()
        x = analysis.modes[:, index]
        k = self.n_minimal
        q = self.transformation @ x[:k]
        v = self.transformation @ x[k:2 * k] + self.velocity_transformation @ x[:k]
        return {"eigenvalue": analysis.eigenvalues[index], "q": q, "v": v, "z": x[2 * k:]}

    # --- systems-theory views -----------------------------------------------------------------------------
    def _io(self, input_name, output_name) -> tuple[int, int]:
        def find(names, name, kind):
            if isinstance(name, int):
                return name
            if name not in names:
                raise ModelError(f"unknown {kind} {name!r}; the linear model has: {', '.join(names) or 'none'}")
            return names.index(name)
        return find(self.input_names, input_name, "input"), find(self.output_names, output_name, "output")

    def to_scipy(self):
        """``scipy.signal.StateSpace`` of the whole model."""
        from scipy import signal

        return signal.StateSpace(self.A, self.B, self.C, self.D)

    def transfer_function(self, input_name, output_name):
        """``scipy.signal.TransferFunction`` from one input to one output."""
        from scipy import signal

        i, o = self._io(input_name, output_name)
        num, den = signal.ss2tf(self.A, self.B[:, [i]], self.C[[o], :], self.D[[o]][:, [i]])
        num = np.where(np.abs(num[0]) > 1e-12 * np.abs(num[0]).max(initial=0.0), num[0], 0.0)  # round-off leaders
        return signal.TransferFunction(np.trim_zeros(num, "f") if np.any(num) else [0.0], den)

    def to_control(self):
        """``control.StateSpace`` (python-control) with state, input and output names."""
        try:
            import control
        except ImportError:
            raise FlexmbsError("python-control is not installed (pip install control)") from None
        return control.ss(self.A, self.B, self.C, self.D, states=list(self.state_names),
                          inputs=list(self.input_names), outputs=list(self.output_names))

    def zpk(self, input_name, output_name) -> dict:
        """Poles, (invariant) zeros, high-frequency gain and DC gain of one channel (see :func:`transfer_summary`)."""
        i, o = self._io(input_name, output_name)
        return transfer_summary(self.A, self.B[:, i], self.C[o], float(self.D[o, i]))

    def simulate(self, times, x0=None, inputs=None) -> np.ndarray:
        """Response of the linear model: states (n_t, n_x) from ``x0`` with inputs ``u(t)`` (callable → (n_u,))."""
        from scipy.integrate import solve_ivp

        x0 = np.zeros(self.n_states) if x0 is None else np.asarray(x0, float)
        u = (lambda t: np.zeros(self.B.shape[1])) if inputs is None else inputs
        sol = solve_ivp(lambda t, x: self.A @ x + self.B @ u(t), (times[0], times[-1]), x0, t_eval=times,
                        method="Radau", rtol=1e-9, atol=1e-12, jac=lambda t, x: self.A)
        return sol.y.T

    # --- files --------------------------------------------------------------------------------------------
    def save(self, path: str) -> str:
        """Write A, B, C, D with names and units: ``.h5`` (HDF5), ``.mat`` (MATLAB) or ``.npz``."""
        data = {"A": self.A, "B": self.B, "C": self.C, "D": self.D, "eigenvalues": self.eigenvalues()}
        names = {f"{kind}_{what}": getattr(self, f"{kind}_{what}") for kind in ("state", "input", "output")
                 for what in ("names", "units")}
        op = self.operating_point
        point = {"q0": op.q, "v0": op.v, "z0": op.z, "y0": self.output_values}
        if path.endswith(".npz"):
            np.savez(path, **data, **{k: np.array(v, dtype=str) for k, v in names.items()},
                     operating_time=op.t, **point)
        elif path.endswith(".mat"):
            from scipy.io import savemat

            savemat(path, {**data, **{k: np.array(v, dtype=object) for k, v in names.items()},
                           "operating_time": op.t, **point})
        elif path.endswith((".h5", ".hdf5")):
            import h5py

            from flexmbs.results.safe_files import write_bytes

            buffer = io.BytesIO()  # built in memory: a full disk is an OSError in Python, not inside HDF5
            with h5py.File(buffer, "w") as fh:
                fh.attrs.update({"format": "flexmbs-linear-model", "format_version": 1, "method": self.method,
                                 "operating_point": f"{op.kind}: {op.note}", "operating_time_s": op.t})
                for key, val in data.items():
                    fh.create_dataset(key, data=val)
                for key, val in names.items():
                    fh.create_dataset(key, data=np.array(val, dtype=object), dtype=h5py.string_dtype())
                for key, val in point.items():
                    fh.create_dataset(f"operating_point/{key}", data=val)
            write_bytes(path, buffer.getbuffer())
        else:
            raise FlexmbsError(f"unknown linear-model file type {path!r}: use .h5, .mat or .npz")
        return path

    def write_mode_series(self, index: int, path: str, amplitude: float = 0.05, frames: int = 24) -> dict:
        """A mechanical mode as motion over one period: a ``*.results.h5`` (``flexmbs animate`` can draw it) and,
        for a ``.pvd`` path, a ParaView series beside it. ``amplitude``: largest displacement of a body frame
        origin or a flexible-body node, m."""
        from flexmbs.engine.recorder import Recorder

        shape = self.mode_shape(index)
        q_shape = shape["q"]
        q_shape = q_shape * np.exp(-1j * np.angle(q_shape[np.argmax(np.abs(q_shape))]))  # largest entry real at 0
        ref = max(_largest_point_motion(self.system, self.operating_point, q_shape.real),
                  _largest_point_motion(self.system, self.operating_point, q_shape.imag))
        if ref == 0.0:
            ref = float(np.abs(q_shape).max()) or 1.0
        op = self.operating_point
        stem = path[:-4] if path.endswith(".pvd") else path.removesuffix(".results.h5")
        results_path = stem + ".results.h5"
        lam = shape["eigenvalue"]
        period = 2.0 * np.pi / abs(lam.imag) if abs(lam.imag) > 0 else 1.0
        recorder = Recorder(self.system, results_path, {"case": f"mode {index + 1}", "eigenvalue": str(lam)})
        for j in range(frames + 1):
            phase = 2.0 * np.pi * j / frames
            q = op.q + amplitude / ref * np.real(np.exp(1j * phase) * q_shape)
            for body in self.system.bodies:  # keep unit Euler parameters
                p = q[body.offset + 3:body.offset + 7]
                q[body.offset + 3:body.offset + 7] = p / np.linalg.norm(p)
            recorder.record(period * j / frames, q, np.zeros_like(q), op.z, op.lam, {})
        recorder.finish("finished", f"mode {index + 1}, eigenvalue {lam:.6g}", {})
        out = {"results": results_path}
        if path.endswith(".pvd"):
            from flexmbs.post.viz.animate import write_pvd

            out.update(write_pvd(results_path, path))
            out["pvd"] = path
        return out


def _points(system, q) -> np.ndarray:
    """Rigid-body frame origins and flexible-body nodes (n, 3), global, m: ``x = r + A (s_p + S_p q_f)`` (seed 003
    eq. 2-145; the floating frame origin of a flexible body is no material point and is left out)."""
    ctx = system.context(q, np.zeros_like(q), 0.0)
    pts = []
    for body, kin in zip(system.bodies, ctx.kin):
        if not body.n_modes:
            pts.append(kin.r[None, :])
        else:
            local = body.node_positions + np.einsum("nkm,m->nk", body.node_translations, kin.qf)
            pts.append(kin.r + local @ kin.A.T)
    return np.vstack(pts)


def _largest_point_motion(system, op, dq: np.ndarray, eps: float = 1e-6) -> float:
    """Largest displacement (m) of a frame origin or node per unit of the shape ``dq`` (linear estimate)."""
    if not np.any(dq):
        return 0.0
    h = eps / float(np.abs(dq).max())
    return float(np.abs(_points(system, op.q + h * dq) - _points(system, op.q - h * dq)).max() / (2 * h))


def _order(lam: np.ndarray) -> np.ndarray:
    return np.lexsort((lam.imag, np.round(np.abs(lam), 12)))


def _sorted(lam: np.ndarray) -> np.ndarray:
    return lam[_order(lam)]


def _dc_gain(A, b, c, d, poles, zeros) -> float:
    """``G(0) = k Π(-z)/Π(-p)`` over the poles and zeros left after cancellation, ``k`` the first non-zero Markov
    parameter (``d``, else ``c A^(r-1) b`` with the relative degree ``r``), summed in logarithms (no overflow)."""
    if d != 0.0 and zeros.size == poles.size:
        k = d
    else:
        r = poles.size - zeros.size
        vec = b.astype(float)
        for _ in range(max(r - 1, 0)):
            vec = A @ vec
        k = float(c @ vec)
    if k == 0.0 or np.any(zeros == 0.0):
        return 0.0
    log = np.log(abs(k)) + np.sum(np.log(np.abs(zeros))) - np.sum(np.log(np.abs(poles)))
    phase = np.angle(k) + np.sum(np.angle(-zeros)) - np.sum(np.angle(-poles))
    return float(np.exp(log) * np.cos(phase))


def transfer_summary(A: np.ndarray, b: np.ndarray, c: np.ndarray, d: float) -> dict:
    """Poles, invariant zeros and DC gain of ``G(s) = c (sI - A)⁻¹ b + d``.

    Zeros are the finite generalized eigenvalues of the Rosenbrock pencil ``[[A, b], [c, d]] - s [[I, 0], [0, 0]]``
    (they include the decoupling zeros of modes the input does not reach or the output does not see, which cancel
    the matching poles). Poles and zeros that coincide (relative 1e-6), and pole–zero pairs that both lie within
    ``NEAR_ORIGIN · max|λ|`` of the origin (a free coordinate the output does not see, e.g. a position under a
    velocity output, whose finite-difference pole is ~1e-9 off zero), are cancelled before the DC gain
    ``d - c A⁻¹ b`` is formed; a remaining pole at zero makes it infinite (an integrator).
    """
    n = A.shape[0]
    poles = np.linalg.eigvals(A)
    _, (scale, _) = sla.matrix_balance(A, permute=False, separate=True)  # similarity scaling: same poles and zeros,
    A, b, c = A * (1.0 / scale)[:, None] * scale[None, :], b / scale, c * scale  # better-conditioned pencil
    pencil = np.block([[A, b[:, None]], [c[None, :], np.array([[d]])]])
    e = np.zeros((n + 1, n + 1))
    e[:n, :n] = np.eye(n)
    alpha, beta = sla.eig(pencil, e, right=False, homogeneous_eigvals=True)
    finite = np.abs(beta) > 1e-12 * np.abs(alpha).max(initial=1.0)
    zeros = alpha[finite] / beta[finite]
    scale = max(np.abs(poles).max(initial=0.0), 1e-300)
    remaining = list(poles)
    kept_zeros = []
    for zero in zeros:
        dist = [abs(zero - p) for p in remaining]
        j = int(np.argmin(dist)) if dist else -1
        near_origin = j >= 0 and max(abs(zero), abs(remaining[j])) <= NEAR_ORIGIN * scale
        if j >= 0 and (dist[j] <= 1e-6 * max(abs(zero), scale * 1e-6) or near_origin):
            remaining.pop(j)
        else:
            kept_zeros.append(zero)
    integrators = sum(abs(p) < ZERO_TOL * scale for p in remaining)
    dc = float("inf") if integrators else _dc_gain(A, b, c, d, np.array(remaining), np.array(kept_zeros))
    return {"poles": _sorted(np.array(remaining)), "zeros": _sorted(np.array(kept_zeros)), "dc_gain": dc,
            "integrators": int(integrators), "cancelled": len(poles) - len(remaining)}


def zero_mode_kind(participation: list, n_minimal: int, state_names: list) -> str:
    """What a zero eigenvalue is, from its participation: ``"free direction of the bodies"`` (mostly mechanical
    coordinates: a motion no stiffness resists there — a rigid-body motion, or a family of equilibria through the
    mechanism) or ``"neutral direction of the states"`` (mostly element states: e.g. the chamber pressures behind a
    closed valve, which any pair with the same cylinder force keeps in equilibrium). Either way the operating
    point is not unique along it."""
    mechanical = set(state_names[:n_minimal]) | {lbl for lbl, _ in participation if lbl.startswith("body ")}
    share = sum(s for lbl, s in participation if lbl in mechanical or lbl.startswith("body "))
    return "free direction of the bodies" if share >= 0.5 else "neutral direction of the states"


def _summary_lines(lin: "LinearModel", max_rows: int) -> list:
    """The lines of :meth:`LinearModel.summary`."""
    k = lin.n_minimal
    n_z = lin.n_states - 2 * k
    op = lin.operating_point
    where = f"{op.kind} at t = {op.t:g} s" if op is not None else "unknown"
    name = getattr(getattr(lin.system, "model", None), "name", None)
    lines = [f"LinearModel{f' of {name!r}' if name else ''} ({lin.method} coordinates): {lin.n_states} states = "
             f"{k} coordinates + {k} rates + {n_z} element states; operating point: {where}"]
    channels = [("inputs ", lin.input_names, lin.input_units), ("outputs", lin.output_names, lin.output_units)]
    for label, names, units in channels:
        items = [f"{n} [{u}]" if u else str(n) for n, u in zip(names, units)]
        lines.append(f"{label}: {', '.join(items) if items else 'none'}")
    if lin.n_states == 0:
        return lines
    analysis = lin.eigen()
    scale = np.abs(analysis.eigenvalues).max(initial=0.0)
    rows = []
    for i, lam in enumerate(analysis.eigenvalues):
        zero = abs(lam) < ZERO_TOL * max(scale, 1e-300)
        if lam.imag < 0.0 and not zero:
            continue  # one row per conjugate pair; every zero its own row (a double zero may come out of the
            # eigensolver as a pair ±iε of round-off size, which is two directions, not an oscillation)
        parts = ", ".join(f"{lbl.removeprefix('element/')} {100 * s:.0f}%" for lbl, s in analysis.participation[i][:3]
                          if s >= 0.005)
        if zero:
            kind = zero_mode_kind(analysis.participation[i], k, lin.state_names)
            rows.append(f"{'0':>10} {'-':>8} {'-':>10}  zero: {kind} ({parts})")
            continue
        zeta = analysis.damping_ratio[i]
        tau = analysis.time_constant_s[i]
        if abs(lam.real) <= UNDAMPED * abs(lam):
            zeta, tau_text = 0.0, f"{'undamped':>10}"
        else:
            tau_text = f"{tau:10.3g}" if np.isfinite(tau) else f"{'unstable':>10}"
        f_text = f"{analysis.frequency_hz[i]:10.4g}" if lam.imag > 0.0 else f"{'real':>10}"
        rows.append(f"{f_text} {zeta:8.4f} {tau_text}  {parts}")
    lines.append(f"eigenvalues ({len(rows)} rows: real ones and conjugate pairs, lowest |λ| first)")
    lines.append(f"{'f [Hz]':>10} {'zeta':>8} {'tau [s]':>10}  participation")
    lines.extend(rows[:max_rows])
    if len(rows) > max_rows:
        lines.append(f"... {len(rows) - max_rows} more rows: lin.eigen().rows()")
    return lines
