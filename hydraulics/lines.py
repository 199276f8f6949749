"""Pipes and hoses: laminar/turbulent resistance and fluid inertia (seed 003 §2.2.1.5, §2.2.1.7, §2.2.2.5)."""
from __future__ import annotations

import math

from fem.errors import ModelError

from .laws import pipe_loss
from .core import Component, store, non_negative, positive
from .nodes import Volume


class Pipe(Component):
    """A pipe or hose segment with fluid inertia; its state is the flow ``q`` from ``A`` to ``B``.

    Momentum balance: ``L dq/dt = p_A - p_B - dp_loss(q)`` with the inertance ``L = rho l / A``
    (seed 003 eq. (2-225)) and the loss ``dp_loss = (lambda(Re) l/d + zeta) rho/2 q|q|/A^2`` (eq. (2-232), (2-210)).
    The friction factor is ``lambda = 64/Re`` below Re = 2300 (exact Hagen-Poiseuille), Blasius
    ``0.3164 Re^-0.25`` above Re = 4000, blended by a C1 cubic step in between. The pipe's volume is a capacitance
    at its end nodes (seed 003 §2.2.2.5); :func:`add_line` distributes it.

    Parameters
    ----------
    name : str
    length : float, m
    diameter : float, m
        Inner (hydraulic) diameter.
    minor_loss_coefficient : float, 1
        ``zeta`` of bends and fittings.
    """

    OUTPUT_UNITS = {"flow": "m^3/s", "power_loss": "W"}

    ports = ("A", "B")
    state_names = ("flow",)
    state_units = ("m^3/s",)

    def __init__(self, name: str, length: float, diameter: float, minor_loss_coefficient: float = 0.0):
        super().__init__(name)
        store(self, positive, name, length=length, diameter=diameter)
        store(self, non_negative, name, minor_loss_coefficient=minor_loss_coefficient)
        self.fluid = None

    @property
    def area(self) -> float:
        """Flow cross-section, m^2."""
        return 0.25 * math.pi * self.diameter**2

    @property
    def inertance(self) -> float:
        """``L = rho l / A``, kg/m^4 (seed 003 eq. (2-225))."""
        return self.fluid.density * self.length / self.area

    def loss_factors(self) -> tuple[float, float, float, float]:
        """The factors of :func:`~hydraulics.laws.pipe_loss` for this pipe: laminar gain
        ``128 rho nu l / (pi d^4)`` (64/Re, Hagen-Poiseuille), Reynolds number per flow ``d / (A nu)``, minor-loss
        factor ``zeta rho / (2 A^2)`` and the Blasius factor ``0.3164 (d/(A nu))^-0.25 (l/d) rho / (2 A^2)``."""
        rho, nu, a, d = self.fluid.density, self.fluid.kinematic_viscosity, self.area, self.diameter
        per_flow = d / (a * nu)
        return (128.0 * rho * nu * self.length / (math.pi * d**4), per_flow,
                self.minor_loss_coefficient * 0.5 * rho / a**2,
                0.3164 * per_flow**-0.25 * (self.length / d) * 0.5 * rho / a**2)

    def pressure_loss(self, flow: float) -> tuple[float, float]:
        """Friction pressure drop (Pa) at a flow (m^3/s) and its derivative, Pa s/m^3 (the kernel's law)."""
        return pipe_loss(flow, *self.loss_factors())


def add_line(circuit, name: str, node_a: str, node_b: str, length: float, diameter: float, segments: int = 1,
             wall_bulk_modulus: float = math.inf, minor_loss_coefficient: float = 0.0, initial_pressure: float = 0.0):
    """Add a pipe or hose between two nodes, lumped into ``segments`` inertia-resistance segments.

    ``segments - 1`` intermediate :class:`~hydraulics.Volume` nodes (``name.1`` ...) hold the segment volumes
    ``A l / n`` with the wall modulus (hose compliance, seed 002 eq. (2)); half a segment volume is added to each
    end node if that node is a Volume. Choose ``n >= 10 l f / sqrt(E'/rho)`` for a frequency ``f`` of interest
    (seed 003 eq. (2-231)).

    Returns
    -------
    list of Pipe
    """
    if int(segments) < 1:
        raise ModelError(f"line '{name}': segments must be at least 1")
    n = int(segments)
    seg_length = length / n
    area = 0.25 * math.pi * diameter**2
    seg_volume = area * seg_length
    nodes = [node_a] + [f"{name}.{k}" for k in range(1, n)] + [node_b]
    for k in range(1, n):
        circuit.add(Volume(nodes[k], seg_volume, wall_bulk_modulus, initial_pressure=initial_pressure))
    for end in (node_a, node_b):
        node = circuit.node(end)
        if isinstance(node, Volume):
            node.add_subvolume(0.5 * seg_volume, wall_bulk_modulus)
    pipes = []
    for k in range(n):
        pipe = Pipe(f"{name}" if n == 1 else f"{name}[{k}]", seg_length, diameter, minor_loss_coefficient / n)
        circuit.add(pipe, A=nodes[k], B=nodes[k + 1])
        pipes.append(pipe)
    return pipes
