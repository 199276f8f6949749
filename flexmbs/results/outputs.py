"""Output requests: which signals a run records (what Adams users call REQUESTs and Exudyn users sensors).

``fm.simulate(model, t_end, outputs=["element/hyd/*", "joint/pivot/force"])`` records the signals whose names match
one of the patterns (:mod:`fnmatch`: ``*`` any text, ``/`` included; ``?`` one character; ``[...]`` a set), the names
of :class:`flexmbs.Results` (``results.signals()`` of a full run lists them). ``outputs=None`` records everything.

Always recorded, whatever the request: the time, the raw states ``q, q̇, z`` of every sample (``Results.states``;
the animation, a restart and the stress recovery read them), the solver's signals ``solver/step_size``,
``solver/newton_iterations``, ``solver/constraint_violation`` and the run's statistics. The request applies to the
signals derived from the states: body and marker kinematics, joint reactions and coordinates, force and state
elements' signals and outputs, integrals. A body's ``position``, ``orientation``, ``velocity`` and
``modal_coordinates`` are slices of the states and are read from them when not recorded
(:meth:`flexmbs.Results.__getitem__`).

The samples then do only the work the recorded signals need (:mod:`flexmbs.engine.samples`): without a joint
reaction among them (and without friction reading the reactions) a sample skips the acceleration-level solve of the
consistent multipliers.
"""
from __future__ import annotations

import contextlib
import contextvars
import difflib
import fnmatch
import functools
import re

from fem.errors import ModelError

from . import derived

__all__ = ["ALWAYS", "STATE_SLICES", "NotRecordedError", "OutputRequest", "default_outputs", "not_recorded_message",
           "request_outputs", "requested_outputs"]


ALWAYS = ("solver/step_size", "solver/newton_iterations", "solver/constraint_violation")
# body/B/...: slices of q and q̇ -> (first, last or None: the body's end, states "q" or "v", unit, components)
STATE_SLICES = {"position": (0, 3, "q", "m", ["x", "y", "z"]),
                "orientation": (3, 7, "q", "1", ["e0", "e1", "e2", "e3"]),
                "velocity": (0, 3, "v", "m/s", ["x", "y", "z"]),
                "modal_coordinates": (7, None, "q", "m kg^0.5", None)}


class NotRecordedError(ModelError):
    """A signal of the model that the run did not record (not requested); the message says how to request it."""


# the request of ``flexmbs run --outputs``: the first run a case starts inside requested_outputs() takes it (when
# given none itself); the case's other runs (a linear model's comparison run, ...) record everything
_DEFAULT = contextvars.ContextVar("flexmbs_outputs", default=None)


@contextlib.contextmanager
def requested_outputs(outputs):
    """The first run started inside this block without ``outputs=`` records ``outputs`` (the command line's
    ``--outputs`` for the run of a case; every case starts its main run first)."""
    token = _DEFAULT.set([outputs])
    try:
        yield
    finally:
        _DEFAULT.reset(token)


def default_outputs():
    """The request of the innermost :func:`requested_outputs` block, once (None outside and after: every signal)."""
    holder = _DEFAULT.get()
    return holder.pop() if holder else None


@functools.lru_cache(maxsize=4096)
def _regex(patterns: tuple[str, ...]):
    """One compiled regular expression matching any of ``patterns`` (fnmatch), or None for none (kept: a study runs
    one request many times, and ``fnmatch.translate`` costs tens of µs a pattern)."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))


def _wild(pattern: str) -> bool:
    return "*" in pattern or "?" in pattern or "[" in pattern


def _patterns(outputs) -> list[str]:
    """The request as a list of patterns: a list of texts, or one text with commas between patterns."""
    if isinstance(outputs, str):
        outputs = [outputs]
    try:
        items = list(outputs)
    except TypeError:
        raise ModelError(f"outputs must be a list of signal-name patterns such as ['element/hyd/*', "
                         f"'joint/pivot/force'] (or None: every signal), got {outputs!r}") from None
    patterns = []
    for item in items:
        if not isinstance(item, str):
            raise ModelError(f"outputs must be signal-name patterns (text) such as 'joint/pivot/force', got "
                             f"{item!r} ({type(item).__name__})")
        if "," in item:
            patterns += [p.strip() for p in item.split(",") if p.strip()]
        elif stripped := item.strip():  # one pattern (the usual item): no split
            patterns.append(stripped)
    return patterns


class OutputRequest:
    """The signals a run records: those matching one of ``patterns`` and the ones always recorded (:data:`ALWAYS`).

    ``name in request`` answers for one name (cached); :meth:`test` is the same test as one function (the samples
    ask once per column)."""

    declared = None  # (system, units, components) the check declared, for the run's recorder (engine/recorder.py)

    def __init__(self, patterns: list[str], names=()):
        self.patterns = list(patterns)
        exact, wild, rooms = [], [], {"solver"}  # (the rooms of ALWAYS)
        for p in self.patterns:  # (_wild inline: a call per pattern, ≈ 0.5 µs each at a start)
            if "*" in p or "?" in p or "[" in p:
                wild.append(p)
            else:
                exact.append(p)
                rooms.add(p.partition("/")[0])
        self._exact = {*exact, *ALWAYS}
        self._regex = _regex(tuple(wild)) if wild else None
        # the rooms (``"element"``, ``"joint"``: the first parts of the names) with a recorded signal, the samples'
        # column plan builds no other room's columns; None for a request with patterns (any room)
        self.rooms = None if wild else rooms
        self._known: dict[str, bool] = {}
        # the model's signal names (those not recorded are "not requested"); read only: a frozenset is kept as given
        self.names = names if isinstance(names, frozenset) else frozenset(names)

    def __contains__(self, name: str) -> bool:
        found = self._known.get(name)
        if found is None:
            found = self._known[name] = name in self._exact or (
                self._regex is not None and self._regex.match(name) is not None)
        return found

    def test(self):
        """The test ``name in self`` as one function: for a request of exact names only (the usual one) the set's own
        membership test (the same answers without the cache: the samples' column plan asks ≈ 50 names once each at
        every start, ≈ 0.2 µs a call saved)."""
        return self._exact.__contains__ if self._regex is None else self.__contains__

    def any(self, names) -> bool:
        """Whether one of ``names`` is recorded."""
        known = self._known
        for name in names:  # (the cached answers read inline: the samples ask for every source's names at a start)
            found = known.get(name)
            if found is None:
                found = name in self
            if found:
                return True
        return False

    def any_under(self, prefix: str) -> bool:
        """Whether one of the model's signals whose name starts with ``prefix`` (``"element/hyd/"``) is recorded."""
        key = "\0" + prefix
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = any(name in self for name in self.names if name.startswith(prefix))
        return found

    def __repr__(self) -> str:
        return f"OutputRequest({self.patterns!r})"


def _derived_match(pattern: str, names) -> bool:
    """A pattern naming a signal derived from the states (``marker/tip/acceleration``, ``body/*/tait_bryan``) of an
    item the model has: computed on request from the always-recorded states."""
    parsed = derived.parse(pattern)
    if parsed is None:
        return False
    room, item, _ = parsed
    prefix = _regex((f"{room}/{item}/*",))
    return any(prefix.match(name) for name in names)


def request_outputs(outputs, names) -> OutputRequest | None:
    """The :class:`OutputRequest` of ``outputs`` (None: everything, returns None) checked against the model's signal
    ``names``: a pattern that matches none of them is a one-line :class:`ModelError` listing close names."""
    if outputs is None:
        return None
    patterns = _patterns(outputs)
    known = frozenset(names)  # (the request keeps it)
    for pattern in patterns:
        if pattern in known:  # (the usual request: exact names, no list of the names needed)
            continue
        names = names if isinstance(names, list) else list(names)
        regex = _regex((pattern,))
        if (_wild(pattern) and any(regex.match(name) for name in names)) or _derived_match(pattern, names):
            continue
        plain = pattern.replace("*", "").replace("?", "")
        close = difflib.get_close_matches(pattern, names, n=4, cutoff=0.5) or difflib.get_close_matches(
            plain, names, n=4, cutoff=0.4)
        if close:
            hint = f"; close names: {', '.join(close)}"
        else:
            groups = sorted({"/".join(n.split("/")[:2]) + "/*" for n in names if not n.startswith("solver/")})
            hint = f"; the model's signals are {', '.join(groups[:8])}{', ...' if len(groups) > 8 else ''}"
        raise ModelError(f"outputs: {pattern!r} matches no signal of the model{hint} (patterns as in fnmatch: "
                         f"'element/hyd/*')")
    return OutputRequest(patterns, known)


def not_recorded_message(name: str, patterns) -> str:
    """The one line for reading a signal the run did not record."""
    return (f"signal {name!r} was not recorded: the run requested only the outputs {list(patterns)!r} (and always "
            f"records time, states and solver statistics); add {name!r} (or a pattern such as "
            f"'{'/'.join(name.split('/')[:2])}/*') to simulate(..., outputs=[...]) or flexmbs run --outputs, and run "
            f"again")
