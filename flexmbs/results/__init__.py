"""Room ``results``: named signals in memory and in ``*.results.h5`` (written incrementally and atomically), output
files that cannot be lost (safe files, locks), plausibility guards on finished results.

May import: ``fem``, ``reduction`` and the room ``model``; it knows nothing of how the results were computed.
"""
