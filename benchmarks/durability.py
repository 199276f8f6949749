"""Benchmark: full-field stress history and Miner damage of every flexible body of a run (all stress-field nodes ×
all output samples), against the simulation's own wall time.

Usage::

    python benchmarks/durability.py RUN.results.h5 [--runs 3] [--max-mb 256]

    # e.g. the clamp-locking stroke (three flexible bars, surface stress field):
    flexmbs run clamp-locking -o /tmp/cl.results.h5
    python benchmarks/durability.py /tmp/cl.results.h5

Each timed run (a fresh process) loads the results file and, per flexible body, forms the von Mises history of every
stress-field node at every sample (blocked modal superposition, peak and time of peak per node: the hot-spot
table) and the signed von Mises history again for rainflow + Goodman + Basquin (structural-steel preset) + Miner
damage per node. Prints each run, the median and one JSON line with the figures for docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's packages

from _harness import measure, repeat_in_subprocesses  # noqa: E402


def _once(path: str, max_mb: float) -> dict:
    import h5py

    from flexmbs.post.durability import body_stress, peak_statistics
    from flexmbs.post.fatigue import SN_PRESETS, damage_field
    from flexmbs.post.viz.scene import load_scene

    scene = load_scene(path)
    nodes = samples = 0
    worst = {}
    for body in scene.bodies:
        if not body.flexible or not body.stress_table()[0].size:
            continue
        s = body_stress(scene, body.name)
        peak = peak_statistics(s.modal_stress, s.q, "von_mises", max_mb * 1e6)
        damage = damage_field(s.modal_stress, s.q, SN_PRESETS["structural-steel"], "signed_von_mises", "goodman",
                              max_mb * 1e6)
        nodes += s.nodes.size
        samples = s.time.size
        worst[body.name] = {"peak_von_mises_mpa": float(peak["max"].max()) / 1e6,
                            "max_damage": float(damage.damage.max()), "full_field": s.full_field}
    with h5py.File(path, "r") as f:
        simulation = float(f["solver"].attrs.get("wall_time_s", float("nan")))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"cpu_s": usage.ru_utime + usage.ru_stime, "nodes": int(nodes), "samples": int(samples), "node_samples": int(nodes * samples),
            "simulation_wall_s": simulation, "bodies": worst}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-mb", type=float, default=256.0, help="work-array bound per block, MB")
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.once:
        print(json.dumps(measure(_once, args.results, args.max_mb)))
        return 0
    summary = repeat_in_subprocesses(os.path.abspath(__file__), [args.results, "--max-mb", str(args.max_mb)],
                                     args.runs)
    print(f"durability of {os.path.basename(args.results)}: {summary['nodes']} nodes × {summary['samples']} samples "
          f"= {summary['node_samples']:.3g} node-samples; median {summary['wall_s_median']:.1f} s wall "
          f"({summary['cpu_s']:.1f} s CPU incl. imports, last run), "
          f"{summary['peak_mb_median']:.0f} MB peak; the simulation itself took "
          f"{summary['simulation_wall_s']:.1f} s ({summary['machine']})", file=sys.stderr)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
