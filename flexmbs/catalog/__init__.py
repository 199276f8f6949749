"""Room ``catalog``: what a machine case declares — the case registry (entry-point group ``flexmbs.cases``), declared
parameters with unit, range and provenance, and the rows of the validation report.

May import: ``fem`` and the rooms ``model``, ``results``; the cases themselves import it, never the reverse.
"""
