"""Fatigue: rainflow counting per node, Basquin S–N curves, Goodman mean-stress correction, Miner damage.

Rainflow counting follows the ``rainflow`` package (ASTM E1049-85 §5.4.4, three-point rule, residue counted as half
cycles) exactly — the same reversals, the same comparisons in the same float64 arithmetic, the same cycles in the
same order — but runs on a block of nodes at once: the reversal points of every node come from array masks, and
the stack machine advances all nodes one reversal per step (the Python loop is over reversal steps, the work inside
is an array operation over the nodes that still have work).

Damage (Palmgren–Miner, linear): ``D = Σ_i n_i / N(S_a,eq,i)`` of the amplitude ``S_a = range / 2`` and mean
``S_m`` of every rainflow cycle (``n_i`` = 1 or ½), Goodman-corrected (:func:`goodman_amplitude`: compressive means
not credited, ``S_m ≥ R_m`` a static failure) on a Basquin curve without endurance limit (:func:`cycles_to_failure`,
``S_a = S_f' (2N)^b`` with ``k = −1/b``; elementary Miner: conservative for long lives). Life: the history repeated
``1 / D`` times, ``duration / D`` seconds. See docs/durability.md ("Fatigue").
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from fem.errors import FlexmbsError

__all__ = ["SNCurve", "SN_PRESETS", "parse_sn", "cycles_to_failure", "goodman_amplitude", "reversal_points",
           "rainflow_blocks", "miner_damage", "DamageResult", "damage_field"]


@dataclass(frozen=True)
class SNCurve:
    """Basquin S–N curve in stress amplitude, with the ultimate strength for the Goodman correction.

    Attributes
    ----------
    name : str
    slope : float                 k (Basquin exponent b = −1/k)
    fatigue_strength : float, Pa  S_D, fully reversed amplitude at ``knee_cycles``
    knee_cycles : float           N_D
    ultimate_strength : float, Pa R_m
    """

    name: str
    slope: float
    fatigue_strength: float
    knee_cycles: float
    ultimate_strength: float

    def describe(self) -> str:
        return (f"{self.name}: N = {self.knee_cycles:.3g} (S_a / {self.fatigue_strength / 1e6:.4g} MPa)^-"
                f"{self.slope:g}, R_m = {self.ultimate_strength / 1e6:.4g} MPa (Goodman)")


# assumed: FKM-guideline style estimates for unnotched material, S_D = f_W R_m at N_D = 1e6 with f_W = 0.40 (steel),
# 0.34 (nodular cast iron), slope k = 5 for normal stress; R_m = 510 MPa (S355, EN 10025-2 range 470–630 MPa) and
# 400 MPa (EN-GJS-400-15). Replace them by the detail's own curve (--sn k=..,sd=..,nd=..,rm=..) for a real part.
SN_PRESETS = {
    "structural-steel": SNCurve("structural steel S355 (assumed FKM estimate)", 5.0, 0.40 * 510e6, 1e6, 510e6),
    "cast-iron": SNCurve("nodular cast iron EN-GJS-400 (assumed FKM estimate)", 5.0, 0.34 * 400e6, 1e6, 400e6),
}
SN_PRESETS["steel"] = SN_PRESETS["structural-steel"]


def _value(text: str) -> float:
    match = re.fullmatch(r"\s*([-+0-9.eE]+)\s*(mpa|gpa|pa)?\s*", text, flags=re.IGNORECASE)
    if not match:
        raise ValueError(text)
    scale = {"mpa": 1e6, "gpa": 1e9, "pa": 1.0, None: 1.0}[match.group(2).lower() if match.group(2) else None]
    return float(match.group(1)) * scale


def parse_sn(text: str | SNCurve | None) -> SNCurve:
    """An S–N curve from a preset name (``structural-steel``, ``steel``, ``cast-iron``) or user values
    ``k=5,sd=204MPa,nd=1e6,rm=510MPa`` (stresses in Pa unless a MPa/GPa suffix is given)."""
    if isinstance(text, SNCurve):
        return text
    if text is None:
        return SN_PRESETS["structural-steel"]
    key = text.strip().lower()
    if key in SN_PRESETS:
        return SN_PRESETS[key]
    if "=" not in key:
        raise FlexmbsError(f"unknown S-N curve {text!r}; use {', '.join(SN_PRESETS)} or k=..,sd=..,nd=..,rm=..")
    values = {}
    try:
        for part in key.split(","):
            name, _, raw = part.partition("=")
            values[name.strip()] = _value(raw)
    except ValueError:
        raise FlexmbsError(f"--sn {text!r}: write k=SLOPE,sd=AMPLITUDE,nd=CYCLES,rm=STRENGTH, e.g. "
                           "k=5,sd=204MPa,nd=1e6,rm=510MPa") from None
    missing = [k for k in ("k", "sd", "nd", "rm") if k not in values]
    if missing or not all(values[k] > 0 for k in ("k", "sd", "nd", "rm")):
        raise FlexmbsError(f"--sn {text!r}: give positive k, sd, nd and rm (missing: {', '.join(missing) or 'none'})")
    return SNCurve("user S-N curve", values["k"], values["sd"], values["nd"], values["rm"])


def cycles_to_failure(amplitude: np.ndarray, sn: SNCurve) -> np.ndarray:
    """Basquin ``N = N_D (S_a / S_D)^(−k)`` (cycles) for amplitudes ``S_a`` (Pa); infinite for zero amplitude."""
    a = np.asarray(amplitude, dtype=float)
    with np.errstate(divide="ignore"):
        return sn.knee_cycles * (a / sn.fatigue_strength) ** (-sn.slope)


def goodman_amplitude(amplitude: np.ndarray, mean: np.ndarray, ultimate_strength: float) -> np.ndarray:
    """Goodman equivalent fully reversed amplitude ``S_a / (1 − S_m / R_m)`` for tensile means, ``S_a`` for
    compressive means, ``inf`` for ``S_m ≥ R_m`` (Pa)."""
    a = np.asarray(amplitude, dtype=float)
    m = np.maximum(np.asarray(mean, dtype=float), 0.0)
    denominator = 1.0 - m / ultimate_strength
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0.0, a / np.where(denominator > 0.0, denominator, 1.0), np.inf)


def reversal_points(series: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reversal points of every row as ``rainflow.reversals`` yields them.

    Parameters
    ----------
    series : (n_rows, n_t) float

    Returns
    -------
    values : (n_rows, L) float      reversal values, padded
    indices : (n_rows, L) int       sample index of each (the last sample of a plateau)
    counts : (n_rows,) int          number of reversal points per row
    """
    x = np.asarray(series, dtype=float)
    n_rows, n_t = x.shape
    if n_t < 3:  # rainflow.reversals: nothing for one sample, only the first for two
        k = 1 if n_t == 2 else 0
        return x[:, :k].copy(), np.zeros((n_rows, k), dtype=np.int64), np.full(n_rows, k, dtype=np.int64)
    cols = np.arange(n_t)
    changes = x[:, 1:] != x[:, :-1]  # (n_rows, n_t - 1): sample i+1 starts a new run
    run_start = np.zeros((n_rows, n_t), dtype=np.int64)
    run_start[:, 1:] = np.where(changes, cols[1:], 0)
    run_start = np.maximum.accumulate(run_start, axis=1)  # first sample of the run holding sample i
    d_last = x - np.take_along_axis(x, np.maximum(run_start - 1, 0), axis=1)
    d_next = np.zeros_like(x)
    d_next[:, :-1] = x[:, 1:] - x[:, :-1]
    is_end = np.zeros((n_rows, n_t), dtype=bool)
    is_end[:, :-1] = changes
    mask = is_end & (run_start > 0) & (d_last * d_next < 0.0)
    mask[:, 0] = True  # the first point, then the last one (even if it repeats the previous value)
    counts = mask.sum(axis=1) + 1
    length = int(counts.max())
    values = np.zeros((n_rows, length))
    indices = np.zeros((n_rows, length), dtype=np.int64)
    rows, where = np.nonzero(mask)
    inner = counts - 1
    slot = np.arange(rows.size) - np.repeat(np.cumsum(inner) - inner, inner)
    values[rows, slot], indices[rows, slot] = x[rows, where], where
    last = np.arange(n_rows)
    values[last, counts - 1], indices[last, counts - 1] = x[:, -1], n_t - 1
    return values, indices, counts


def rainflow_blocks(series: np.ndarray, keep_cycles: bool = False, on_cycles=None) -> dict:
    """Rainflow cycles of every row of ``series`` (n_rows, n_t), identical to ``rainflow.extract_cycles``.

    ``on_cycles(rows, range, mean, count)`` is called with every batch of cycles (one per row at most); with
    ``keep_cycles`` the cycles are returned as arrays ``row, range, mean, count, start, end`` in the order the
    ``rainflow`` package yields them per row.
    """
    values, indices, counts = reversal_points(series)
    n_rows, length = values.shape
    stack = np.zeros_like(values)
    stack_at = np.zeros_like(indices)
    low = np.zeros(n_rows, dtype=np.int64)  # first live entry (popleft moves it)
    top = np.zeros(n_rows, dtype=np.int64)  # one past the last live entry
    no_row, none = np.zeros(0, dtype=np.int64), np.zeros(0)
    batches = [(no_row, none, none, none, no_row, no_row)]  # (row, range, mean, count, start, end) per batch

    def emit(rows, first, second, count):
        x1, x2 = stack[rows, first], stack[rows, second]
        rng, mean = np.abs(x1 - x2), 0.5 * (x1 + x2)
        cnt = np.full(rows.size, count)
        if on_cycles is not None:
            on_cycles(rows, rng, mean, cnt)
        if keep_cycles:
            batches.append((rows, rng, mean, cnt, stack_at[rows, first], stack_at[rows, second]))

    for step in range(length):
        rows = np.flatnonzero(counts > step)
        stack[rows, top[rows]], stack_at[rows, top[rows]] = values[rows, step], indices[rows, step]
        top[rows] += 1
        while rows.size:
            rows = rows[top[rows] - low[rows] >= 3]
            t = top[rows]
            x1, x2, x3 = stack[rows, t - 3], stack[rows, t - 2], stack[rows, t - 1]
            rows = rows[~(np.abs(x3 - x2) < np.abs(x2 - x1))]  # rainflow: X < Y -> read the next point
            if not rows.size:
                break
            three = top[rows] - low[rows] == 3
            half, full = rows[three], rows[~three]
            if half.size:  # Y contains the starting point: half cycle, discard the first point
                emit(half, low[half], low[half] + 1, 0.5)
                low[half] += 1
            if full.size:  # one cycle; discard its peak and valley, keep the last point
                t = top[full]
                emit(full, t - 3, t - 2, 1.0)
                stack[full, t - 3], stack_at[full, t - 3] = stack[full, t - 1], stack_at[full, t - 1]
                top[full] -= 2
    for k in range(int((top - low).max(initial=0)) - 1):  # the residue: half cycles
        rows = np.flatnonzero(low + k + 1 < top)
        emit(rows, low[rows] + k, low[rows] + k + 1, 0.5)
    if not keep_cycles:
        return {}
    cols = [np.concatenate(c) for c in zip(*batches)]
    order = np.argsort(cols[0], kind="stable")  # batches are in emission order: stable sort keeps it per row
    return dict(zip(("row", "range", "mean", "count", "start", "end"), (c[order] for c in cols)))


@dataclass
class DamageResult:
    """Miner damage per row (node) of a block of histories.

    Attributes
    ----------
    damage : (n,) float          Σ n_i / N_i for one pass of the history
    cycles : (n,) float          rainflow cycles counted (half cycles as ½)
    max_amplitude : (n,) Pa      largest Goodman-equivalent amplitude
    static_failures : (n,) float cycles with mean ≥ R_m (infinite damage), half cycles as ½
    """

    damage: np.ndarray
    cycles: np.ndarray
    max_amplitude: np.ndarray
    static_failures: np.ndarray


def miner_damage(series: np.ndarray, sn: SNCurve, mean_correction: str = "goodman") -> DamageResult:
    """Rainflow + Goodman + Basquin + Miner for every row of ``series`` (n_rows, n_t), Pa."""
    if mean_correction not in ("goodman", "none"):
        raise FlexmbsError(f"mean-stress correction {mean_correction!r}: use goodman or none")
    n = np.shape(series)[0]
    damage, cycles = np.zeros(n), np.zeros(n)
    peak, static = np.zeros(n), np.zeros(n)

    def accumulate(rows, rng, mean, count):
        amplitude = 0.5 * rng
        if mean_correction == "goodman":
            amplitude = goodman_amplitude(amplitude, mean, sn.ultimate_strength)
        life = cycles_to_failure(amplitude, sn)
        with np.errstate(divide="ignore"):
            damage[rows] += count / life  # life 0 for a static failure: infinite damage
        cycles[rows] += count
        peak[rows] = np.maximum(peak[rows], amplitude)
        static[rows] += count * np.isinf(amplitude)

    rainflow_blocks(series, on_cycles=accumulate)
    return DamageResult(damage, cycles, peak, static)


def damage_field(modal_stress: np.ndarray, q: np.ndarray, sn: SNCurve, quantity: str = "signed_von_mises",
                 mean_correction: str = "goodman", max_bytes: float | None = None) -> DamageResult:
    """Miner damage at every node of a stress field for one pass of a run.

    The equivalent stress history of a block of nodes comes from the blocked modal superposition of
    :func:`flexmbs.post.durability.iter_histories` and goes straight into :func:`miner_damage`; nothing of size
    nodes × samples outlives its block.

    Parameters
    ----------
    modal_stress : (n, 6, m) Pa per unit modal coordinate
    q : (n_t, m) elastic coordinates
    quantity : str
        The stress that is cycle-counted (:data:`flexmbs.post.durability.QUANTITIES`); signed von Mises by default.
    """
    from .durability import MAX_BYTES, iter_histories

    n = np.shape(modal_stress)[0]
    out = DamageResult(np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n))
    for block, history in iter_histories(modal_stress, q, quantity, max_bytes or MAX_BYTES):
        part = miner_damage(history, sn, mean_correction)
        out.damage[block], out.cycles[block] = part.damage, part.cycles
        out.max_amplitude[block], out.static_failures[block] = part.max_amplitude, part.static_failures
    return out
