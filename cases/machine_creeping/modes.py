"""Natural frequencies of the whole machine on its pads at rest (the "clamp-unit mode" of seed 003 L7568-7582,
measured at 8.2 Hz): the undamped eigenproblem ``K x = ω² M x`` of the model linearized at a state, on the
tangent space of its constraints (``x = T y``, ``Φ_q T = 0``), with the stiffness ``K = ∂R/∂q`` and the mass
matrix of the compiled residual the run integrates (:class:`flexmbs.engine.evaluate.Evaluator`).

``python -m cases.machine_creeping.modes [--set key=value]...`` prints the first frequencies with the share of
kinetic energy per body and the share of the mode's pad force in the machine direction.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

__all__ = ["machine_frequencies"]


def machine_frequencies(system, state, f_max: float = 30.0) -> list[dict]:
    """Frequencies (Hz) up to ``f_max`` of the machine linearized at ``state`` (a solver StepState at rest), each
    with ``energy`` (share of the mode's kinetic energy per body)."""
    from flexmbs.engine.evaluate import evaluator
    from flexmbs.engine.initial import static_blocks

    q, v, qdd, z, lam, t = state.q, np.zeros_like(state.v), np.zeros_like(state.qdd), state.z, state.lam, state.t
    ev = evaluator(system, q, v, z, t)
    jac, mass = ev.residual(t, q, v, qdd, z, lam)[3:]
    stiffness = static_blocks(ev, t, q, z, lam)["K"]
    basis = sla.null_space(jac)
    k_r = basis.T @ stiffness @ basis
    m_r = basis.T @ mass @ basis
    w2, vec = sla.eig(0.5 * (k_r + k_r.T), 0.5 * (m_r + m_r.T))
    w2 = np.real(w2)
    order = np.argsort(w2)
    out = []
    for k in order:
        if not w2[k] > 0.0:
            continue
        f = float(np.sqrt(w2[k]) / (2.0 * np.pi))
        if f > f_max:
            break
        x = basis @ np.real(vec[:, k])
        total = float(x @ mass @ x)
        energy = {b.name: float(x[b.slice] @ mass[b.slice, b.slice] @ x[b.slice]) / total for b in system.bodies}
        out.append({"frequency_hz": f, "energy": energy})
    return out


def main(argv=None) -> None:
    import argparse

    import flexmbs as fm
    from flexmbs.engine.initial import initial_accelerations
    from flexmbs.engine.system import System

    from cases import parse_assignments

    from . import DEFAULTS, NAME, SETTLE_TIME, linearization

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--settle", type=float, default=SETTLE_TIME, help="s of rest before the linearization")
    args = parser.parse_args(argv)
    hook = linearization(parse_assignments(args.set, DEFAULTS, NAME))  # the machine at rest, its drive idle
    res = fm.simulate(hook["model"], args.settle, **hook["simulate_options"])
    system = System(hook["model"])
    state = res.final_state
    qdd, lam, _ = initial_accelerations(system, state.q, np.zeros_like(state.v), state.z)
    state.lam = lam
    print("| f [Hz] | " + " | ".join(f"{b.name} [%]" for b in system.bodies) + " |")
    print("|---" * (len(system.bodies) + 1) + "|")
    for mode in machine_frequencies(system, state):
        print(f"| {mode['frequency_hz']:.2f} | "
              + " | ".join(f"{100 * mode['energy'][b.name]:.0f}" for b in system.bodies) + " |")


if __name__ == "__main__":
    main()
