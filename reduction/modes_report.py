"""Pairing reduced and full free–free modes by shape, their character, the accuracy warning and the cut-off rule.

A reduction report that pairs modes by rank compares unrelated shapes as soon as one reduced mode is off by more
than the gap to its neighbour (a 10 % stiff torsion mode of a bar lands between two bending modes). Here:

* **Pairing by shape.** Each full free–free mode is assigned one reduced mode by a maximum-weight assignment
  (Hungarian method, :func:`scipy.optimize.linear_sum_assignment`) on the MAC matrix. Degenerate full modes (a
  square bar's bending pairs; groups as in :mod:`fem.canonical`, rule 1) are compared as a subspace: the score of a
  reduced mode against any member of a group is its MAC with the group's *span*, so the assignment cannot prefer an
  arbitrary member; ties inside the group are broken by the ordinary MAC of the canonical (probe-aligned) members.
* **Character** of each full mode from its shape, relative to the part's longest principal axis ``e`` (cross
  sections are ``N_SLICES`` slabs along ``e``): mass-weighted shares of the motion in the section-mean axial
  displacement (*axial*), the section rotation about ``e`` (*torsion*), the section-mean transverse displacement
  (*bending*), and the rest — deformation of the sections themselves (*local*). The largest share names the mode;
  a mode whose motion is concentrated on few nodes (participating mass fraction below ``LOCAL_PARTICIPATION``)
  is *local* whatever the shares.
* **Warning** when any of the first ``CHECK_MODES`` paired modes is off by more than ``FREQUENCY_TOLERANCE``.
* **Cut-off criterion** :data:`CUTOFF_FACTOR`: retain the fixed-interface modes up to ``CUTOFF_FACTOR · F`` for a
  highest frequency of interest ``F`` (docs/theory-fem.md explains the factor).
"""
from __future__ import annotations

import numpy as np

from fem.canonical import mode_groups

__all__ = ["CHARACTERS", "CHECK_MODES", "CUTOFF_FACTOR", "FREQUENCY_TOLERANCE", "accuracy_warnings",
           "mode_characters", "pair_modes"]

#: Fixed-interface modes are retained up to this multiple of the highest frequency of interest (``--max-frequency``).
#: 2: the rule of thumb of 1.5–2× quoted for Craig–Bampton reductions, taken at its upper end because a free–free
#: mode of a part held at both ends needs the fixed-interface mode of twice its order (a bar's first free–free
#: torsion mode needs the second fixed–fixed torsion mode at 2× its frequency; 1.5× leaves it 10 % stiff).
CUTOFF_FACTOR = 2.0
#: Relative frequency error above which a paired mode triggers the warning (1 %: the acceptance of seed-style
#: reduction checks, e.g. the first bending pair of seed 003 Table 3-1 agrees to 0.1 %).
FREQUENCY_TOLERANCE = 0.01
#: Number of lowest full free–free modes the warning looks at (the seed's Table 3-1 compares ten).
CHECK_MODES = 10
#: Characters in the order of ``character_fractions`` columns.
CHARACTERS = ("bending", "torsion", "axial", "local")
N_SLICES = 24
#: Participating mass fraction ``(Σ m|u|²)² / (M Σ m²|u|⁴)`` below which a mode is local (a uniform bar's bending
#: modes have 0.3–0.5; a mode confined to one tenth of the part has at most 0.1).
LOCAL_PARTICIPATION = 0.1


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=0), 1e-300)


def pair_modes(reduced: np.ndarray, full: np.ndarray, full_hz: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                                       np.ndarray]:
    """Assign each full mode its reduced partner by shape.

    Parameters
    ----------
    reduced : (n_dof, m) float
        Reduced-model mode shapes (translations), any normalization.
    full : (n_dof, n) float
        Full-model elastic free–free mode shapes.
    full_hz : (n,) float, Hz
        Their frequencies (ascending), for the degenerate groups.

    Returns
    -------
    partner : (n,) int
        Index of the reduced mode paired with each full mode (−1 if there are fewer reduced modes).
    mac : (n,) float
        Subspace MAC of the pair: share of the reduced mode lying in the span of the full mode's degenerate group
        (the ordinary MAC for an isolated mode).
    member_mac : (n,) float
        Ordinary MAC of the paired shapes.
    """
    a, b = _unit(reduced), _unit(full)
    member = (b.T @ a) ** 2  # (n, m)
    score = np.empty_like(member)
    for group in mode_groups(np.asarray(full_hz, dtype=float) ** 2):
        basis, _ = np.linalg.qr(b[:, group])
        score[group] = np.sum((basis.T @ a) ** 2, axis=0)
    from scipy.optimize import linear_sum_assignment  # here: scipy.optimize costs 0.13 s to import, and a reduction
    # without the report's comparison (a cached case body) never pairs modes

    rows, cols = linear_sum_assignment(-(score + 1e-6 * member))  # span first, members break ties
    partner = np.full(full.shape[1], -1)
    partner[rows] = cols
    ok = partner >= 0
    mac, member_mac = np.zeros(partner.size), np.zeros(partner.size)
    mac[ok] = score[np.flatnonzero(ok), partner[ok]]
    member_mac[ok] = member[np.flatnonzero(ok), partner[ok]]
    return partner, mac, member_mac


def mode_characters(shapes: np.ndarray, positions: np.ndarray, masses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Character of mode shapes from their translations (module docstring).

    Parameters
    ----------
    shapes : (n_nodes, 3, n) float
        Nodal translations per mode.
    positions : (n_nodes, 3) float, m
    masses : (n_nodes,) float, kg
        Lumped nodal masses (weights; massless nodes such as spider reference nodes do not count).

    Returns
    -------
    fractions : (n, 4) float
        Shares of bending, torsion, axial and local motion (sum 1).
    participation : (n,) float
        Participating mass fraction of each mode (1: all mass moves alike; small: localized).
    """
    m = np.asarray(masses, dtype=float)
    keep = m > 0
    x, u, m = positions[keep], shapes[keep], m[keep]
    centre = m @ x / m.sum()
    d = x - centre
    inertia = (d * m[:, None]).T @ d
    axis = np.linalg.eigh(inertia)[1][:, -1]  # largest second moment of mass: the longest direction
    s = d @ axis
    edges = np.linspace(s.min(), s.max(), N_SLICES + 1)
    slab = np.clip(np.searchsorted(edges, s, side="right") - 1, 0, N_SLICES - 1)
    radial = d - np.outer(s, axis)  # distance vector from the axis line
    n_modes = u.shape[2]
    total = np.einsum("i,ijk,ijk->k", m, u, u)
    parts = np.zeros((n_modes, 4))
    for k in range(N_SLICES):
        sel = slab == k
        if not sel.any():
            continue
        ms, us, rs = m[sel], u[sel], radial[sel]
        mass = ms.sum()
        rc = ms @ rs / mass
        rr = rs - rc
        mean = np.einsum("i,ijk->jk", ms, us) / mass  # (3, n) section-mean displacement
        axial = axis @ mean
        transverse = mean - np.outer(axis, axial)
        polar = ms @ np.sum(rr * rr, axis=1)
        twist = np.einsum("i,ij,ijk->k", ms, np.cross(axis, rr), us) / max(polar, 1e-300)
        parts[:, 0] += mass * np.sum(transverse**2, axis=0)
        parts[:, 1] += polar * twist**2
        parts[:, 2] += mass * axial**2
    parts[:, :3] /= np.maximum(total, 1e-300)[:, None]
    parts[:, 3] = np.clip(1.0 - parts[:, :3].sum(axis=1), 0.0, 1.0)
    parts /= parts.sum(axis=1, keepdims=True)
    energy = m[:, None] * np.sum(u * u, axis=1)  # (nodes, n)
    participation = energy.sum(axis=0) ** 2 / (m.sum() * np.sum(energy**2 / m[:, None], axis=0))
    return parts, participation


def character_names(fractions: np.ndarray, participation: np.ndarray) -> list[str]:
    """The name of each mode's character: the largest share, or ``local`` when the mode is localized."""
    names = [CHARACTERS[int(k)] for k in np.argmax(fractions, axis=1)]
    return ["local" if p < LOCAL_PARTICIPATION else n for n, p in zip(names, participation)]


def accuracy_warnings(full_hz, reduced_hz, partner, mac, characters, n_check: int = CHECK_MODES,
                      tolerance: float = FREQUENCY_TOLERANCE, max_frequency: float | None = None) -> list[str]:
    """One line per paired mode among the first ``n_check`` full modes that is off by more than ``tolerance``;
    with the cut-off criterion (``max_frequency``, Hz, the highest frequency of interest) only modes up to it."""
    lines = []
    for k in range(min(n_check, len(full_hz))):
        if max_frequency is not None and full_hz[k] > max_frequency:
            break
        j = int(partner[k])
        if j < 0:
            lines.append(f"full free–free mode {k + 1} ({characters[k]}, {full_hz[k]:.2f} Hz) has no reduced "
                         "partner: retain more fixed-interface modes (--modes N) or use the cut-off criterion "
                         "--max-frequency F")
            continue
        error = reduced_hz[j] / full_hz[k] - 1.0
        if abs(error) > tolerance:
            lines.append(f"full free–free mode {k + 1} ({characters[k]}, {full_hz[k]:.2f} Hz) is reproduced at "
                         f"{reduced_hz[j]:.2f} Hz ({100 * error:+.1f} %, MAC {mac[k]:.3f}), more than "
                         f"{100 * tolerance:g} %: retain more fixed-interface modes (--modes N) or use the cut-off "
                         f"criterion --max-frequency F (fixed-interface modes up to {CUTOFF_FACTOR:g}·F, F the "
                         "highest frequency of interest)")
    return lines
