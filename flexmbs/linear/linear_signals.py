"""Named inputs and outputs of a linearized model: inputs ``force/<force>[/<component>]`` and
``element/<element>/<signal>`` (offset by ``δu`` for the columns of ``B`` and ``D``), outputs the results file's
signal names with the vector component appended; the names, units and examples are listed in docs/linearization.md,
"Naming inputs and outputs".
"""
from __future__ import annotations

import contextlib

import numpy as np

from fem.errors import ModelError

from flexmbs.engine.system import measure

__all__ = ["InputSignal", "resolve_input", "resolve_output", "evaluate_outputs", "available_inputs",
           "unit_scale"]

_XYZ = {"x": 0, "y": 1, "z": 2}
_POINT_FORCE = {"Fx": ("force", 0, "N"), "Fy": ("force", 1, "N"), "Fz": ("force", 2, "N"),
                "Tx": ("torque", 0, "N m"), "Ty": ("torque", 1, "N m"), "Tz": ("torque", 2, "N m")}
# typical magnitudes of a unit, used as the floor of finite-difference steps (step = h * max(|x|, floor))
_UNIT_FLOOR = {"Pa": 1e5, "m^3/s": 1e-4, "N": 1.0, "N m": 1.0, "m": 1.0, "rad": 1.0, "1": 1.0}


def unit_scale(unit: str) -> float:
    """Typical magnitude of a quantity in ``unit`` (floor of finite-difference steps)."""
    return _UNIT_FLOOR.get(unit, 1.0)


class InputSignal:
    """A named scalar input: its unit, its value at the operating point and a way to offset it by ``delta``."""

    def __init__(self, name: str, unit: str, owner, attribute: str, wrap):
        self.name, self.unit = name, unit
        self._owner, self._attribute, self._wrap = owner, attribute, wrap

    @contextlib.contextmanager
    def offset(self, delta: float):
        """Within the block the signal reads ``u(t) + delta``."""
        had = self._attribute in vars(self._owner)
        original = getattr(self._owner, self._attribute)
        setattr(self._owner, self._attribute, self._wrap(original, float(delta)))
        try:
            yield
        finally:
            if had:
                setattr(self._owner, self._attribute, original)
            else:
                delattr(self._owner, self._attribute)


def _shift_function(original, delta):
    """A time function (a joint actuator's load) or a signal's ``evaluate`` shifted by ``delta``."""
    return lambda arg: original(arg) + delta


def _shift_vector_function(index):
    def wrap(original, delta):
        def shifted(t):
            value = np.zeros(3) if original is None else np.array(original(t), dtype=float)
            value[index] += delta
            return value
        return shifted
    return wrap


def _find(items, name, kind, model_name):
    for item in items:
        if item.name == name:
            return item
    known = ", ".join(i.name for i in items) or "none"
    raise ModelError(f"unknown {kind} {name!r} in model {model_name!r}; known: {known}")


def available_inputs(model) -> list[str]:
    """Names of all inputs :func:`resolve_input` accepts for ``model``."""
    names = []
    for force in model.forces:
        if callable(getattr(force, "load", None)):
            names.append(f"force/{force.name}")
        elif hasattr(force, "force") and hasattr(force, "torque"):
            names += [f"force/{force.name}/{c}" for c in _POINT_FORCE]
    for element in model.elements:
        for comp in getattr(element, "components", []):
            if callable(getattr(comp, "evaluate", None)) and hasattr(comp, "unit"):
                names.append(f"element/{element.name}/{comp.name}")
    return names


def resolve_input(model, name: str) -> InputSignal:
    """The :class:`InputSignal` called ``name`` (docs/linearization.md); a one-line ModelError lists the valid ones."""
    parts = name.split("/")
    try:
        if parts[0] == "force" and len(parts) in (2, 3):
            force = _find(model.forces, parts[1], "force element", model.name)
            key = parts[2] if len(parts) == 3 else "load"
            if key == "load" and callable(getattr(force, "load", None)):
                unit = "N m" if getattr(force, "which", "rotation") == "rotation" else "N"
                return InputSignal(name, unit, force, "load", _shift_function)
            if key in _POINT_FORCE and hasattr(force, "torque"):
                attr, index, unit = _POINT_FORCE[key]
                return InputSignal(name, unit, force, attr, _shift_vector_function(index))
        if parts[0] == "element" and len(parts) == 3:
            element = _find(model.elements, parts[1], "state element", model.name)
            lookup = getattr(element, "component", None)
            try:
                comp = lookup(parts[2]) if callable(lookup) else None
            except ModelError:
                comp = None
            if comp is not None and callable(getattr(comp, "evaluate", None)):
                return InputSignal(name, getattr(comp, "unit", "1"), comp, "evaluate", _shift_function)
    except ModelError as exc:
        raise ModelError(f"input {name!r}: {exc}") from None
    known = ", ".join(available_inputs(model)) or "none"
    raise ModelError(f"unknown input {name!r}; inputs of model {model.name!r}: {known}")


# ------------------------------------------------------------------------------------------------------ outputs
class OutputSignal:
    """A named scalar output ``y(q, q̇, z, t)``: ``evaluate(ctx, z)`` and its unit; outputs that are functions of the
    positions only also have ``gradient(ctx) -> ∂y/∂q`` (n_q,), which makes them usable as minimal coordinates."""

    def __init__(self, name: str, unit: str, evaluate, angle: bool = False, gradient=None):
        self.name, self.unit, self.evaluate, self.angle = name, unit, evaluate, angle
        self.gradient = gradient


def _unit_gradient(system, index):
    def gradient(ctx):
        g = np.zeros(system.n_q)
        g[index] = 1.0
        return g
    return gradient


def _quasi_gradient(system, pairs):
    """``∂y/∂q`` (n_q,) from quasi-coordinate gradients ``[(marker, (6+m,)), ...]`` (``L`` of each body)."""
    from flexmbs.engine.system import to_coordinates_rows

    def gradient(ctx):
        g = np.zeros(system.n_q)
        for marker, row in pairs(ctx):
            if not marker.on_ground:
                body = marker.body
                g[body.slice] += to_coordinates_rows(np.atleast_2d(row), ctx.kin[body.index])[0]
        return g
    return gradient


def _component(name, parts, index_names):
    if len(parts) != 1 or parts[0] not in index_names:
        raise ModelError(f"output {name!r}: give a component, one of {', '.join(index_names)}")
    return index_names[parts[0]]


# body outputs: unit, component names (None: the body's modes q1, q2, ...), value from the body's kinematics, and for
# a coordinate of q its offset in the body's coordinates (the output's gradient is then a unit row)
_BODY_OUTPUTS = {"position": ("m", _XYZ, lambda kin, i: kin.r[i], 0),
                 "velocity": ("m/s", _XYZ, lambda kin, i: kin.rdot[i], None),
                 "angular_velocity": ("rad/s", _XYZ, lambda kin, i: (kin.A @ kin.omega)[i], None),
                 "orientation": ("1", {"e0": 0, "e1": 1, "e2": 2, "e3": 3}, lambda kin, i: kin.p[i], 3),
                 "modal_coordinates": ("m kg^0.5", None, lambda kin, i: kin.qf[i], 7)}


def _body_output(system, name, body, key, rest):
    if key not in _BODY_OUTPUTS:
        raise ModelError(f"output {name!r}: body outputs are {', '.join(_BODY_OUTPUTS)}")
    unit, components, value, offset = _BODY_OUTPUTS[key]
    i = _component(name, rest, components or {f"q{k + 1}": k for k in range(body.n_modes)})
    b = body.index
    gradient = None if offset is None else _unit_gradient(system, body.offset + offset + i)
    return OutputSignal(name, unit, lambda ctx, z: float(value(ctx.kin[b], i)), gradient=gradient)


def _element_output(system, name, k, element, key):
    lo, hi = system.z_offsets[k], system.z_offsets[k + 1]
    states = list(element.state_names)
    units = list(getattr(element, "state_units", [""] * len(states)))
    if key in states:
        j = lo + states.index(key)
        return OutputSignal(name, units[states.index(key)], lambda ctx, z: float(z[j]))
    meas = {f"y/{m.name}": i for i, m in enumerate(element.measurements)}
    if key in meas:
        i = meas[key]
        return OutputSignal(name, getattr(element.measurements[i], "unit", ""),
                            lambda ctx, z: float(element.measurements[i].evaluate(ctx)[0]))
    out_units = getattr(element, "output_units", {})
    if key in out_units and hasattr(element, "outputs"):
        def value(ctx, z):
            y, ydot, _ = measure(ctx, element.measurements)
            return float(element.outputs(ctx.t, z[lo:hi], y, ydot)[key])
        return OutputSignal(name, out_units[key], value)
    known = states + list(meas) + list(out_units)
    raise ModelError(f"unknown output {name!r}; element {element.name!r} has: {', '.join(known)}")


def resolve_output(system, name: str) -> OutputSignal:
    """The :class:`OutputSignal` called ``name`` (docs/linearization.md); a one-line ModelError otherwise."""
    model = system.model
    parts = name.split("/")
    try:
        if parts[0] == "joint" and len(parts) == 3:
            joint = _find(model.joints, parts[1], "joint", model.name)
            which = parts[2]
            if which not in joint.coordinates:
                raise ModelError(f"joint {joint.name!r} has no {which} coordinate (it has: "
                                 f"{', '.join(joint.coordinates) or 'none'})")
            def coordinate(ctx):
                return joint.coordinate(which, ctx.marker(joint.marker_i), ctx.marker(joint.marker_j))

            def pairs(ctx):
                _, gi, gj, _ = coordinate(ctx)
                return [(joint.marker_i, gi), (joint.marker_j, gj)]
            return OutputSignal(name, "rad" if which == "rotation" else "m", lambda ctx, z: float(coordinate(ctx)[0]),
                                angle=which == "rotation", gradient=_quasi_gradient(system, pairs))
        if parts[0] == "body" and len(parts) >= 3:
            body = _find(model.bodies, parts[1], "body", model.name)
            return _body_output(system, name, body, parts[2], parts[3:])
        if parts[0] == "marker" and len(parts) == 4 and parts[2] in ("position", "velocity"):
            marker = _find(model.markers, parts[1], "marker", model.name)
            i = _component(name, parts[3:], _XYZ)
            if parts[2] == "position":
                return OutputSignal(name, "m", lambda ctx, z: float(ctx.marker(marker).x[i]),
                                    gradient=_quasi_gradient(system, lambda ctx: [(marker, ctx.marker(marker).Jx[i])]))
            return OutputSignal(name, "m/s", lambda ctx, z: float(ctx.marker(marker).v[i]))
        if parts[0] == "element" and len(parts) >= 3:
            element = _find(model.elements, parts[1], "state element", model.name)
            k = model.elements.index(element)
            return _element_output(system, name, k, element, "/".join(parts[2:]))
        if parts[0] == "force" and len(parts) == 3:
            force = _find(model.forces, parts[1], "force element", model.name)
            if parts[2] in force.output_units:
                return OutputSignal(name, force.output_units[parts[2]],
                                    lambda ctx, z: float(force.outputs(ctx)[parts[2]]))
            raise ModelError(f"force {force.name!r} has outputs: {', '.join(force.output_units)}")
    except ModelError as exc:
        text = str(exc)
        raise ModelError(text if text.startswith(("unknown output", "output")) else f"output {name!r}: {text}"
                         ) from None
    raise ModelError(f"unknown output {name!r}; use a results-file signal name with its component, e.g. "
                     "joint/<joint>/rotation, body/<body>/position/x, element/<element>/<state> "
                     "(docs/linearization.md)")


def evaluate_outputs(system, outputs, q, v, z, t, lam=None) -> np.ndarray:
    """All outputs at one state, (n_y,)."""
    if not outputs:
        return np.zeros(0)
    ctx = system.context(q, v, t, lam)
    return np.array([o.evaluate(ctx, z) for o in outputs])
