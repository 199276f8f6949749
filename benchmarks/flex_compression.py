"""Benchmark: HDF5 compression of a flexible-body file — write time, read time and size per filter.

    python benchmarks/flex_compression.py BODY.flex.h5 [--runs 3]

Reads BODY once, then writes and reads it back ``--runs`` times per setting (``reduction.io.write_flexbody`` /
``read_flexbody``, the whole file including the fsync), medians of CPU and wall time, and the file size. The
settings: no filter, LZF, gzip levels 1 to 4 and 9, with and without the byte shuffle filter, each applied to every
dataset of more than 4096 items; and "where it saves" (the default since issue 31's third round): gzip 1 + shuffle
only on the datasets where a trial on a sample saves at least ``reduction.stressfield.COMPRESS_MIN_SAVING``. Prints a
Markdown table and the load average before and after.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

SETTINGS = {"none": {}, "lzf": {"compression": "lzf"},
            **{f"gzip {level}": {"compression": "gzip", "compression_opts": level} for level in (1, 2, 3, 4, 9)},
            "lzf + shuffle": {"compression": "lzf", "shuffle": True},
            **{f"gzip {level} + shuffle": {"compression": "gzip", "compression_opts": level, "shuffle": True}
               for level in (1, 2, 3, 4)}}
WHERE_IT_SAVES = "gzip 1 + shuffle where it saves"  # the default: reduction.stressfield.filters


def _timed(func, *args):
    t0, c0 = time.perf_counter(), time.process_time()
    func(*args)
    return time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("body")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    import reduction.io as rio
    import reduction.stressfield as rsf

    body = rio.read_flexbody(args.body)
    print(f"load average before: {os.getloadavg()[0]:.2f}; {body.n_modes} modes, {body.positions.shape[0]} nodes")
    print("| setting | size [MB] | write wall / CPU [s] | read wall / CPU [s] |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "b.flex.h5")
        default = (dict(rsf.COMPRESSION), rsf.COMPRESS_MIN_SAVING)
        for name, setting in [*SETTINGS.items(), (WHERE_IT_SAVES, default[0])]:
            rsf.COMPRESSION.clear()
            rsf.COMPRESSION.update(setting)
            rsf.COMPRESS_MIN_SAVING = default[1] if name == WHERE_IT_SAVES else -1.0  # -1: on every dataset
            writes = [_timed(rio.write_flexbody, body, path) for _ in range(args.runs)]
            reads = [_timed(rio.read_flexbody, path) for _ in range(args.runs)]
            size = os.path.getsize(path) / 1e6
            w = [statistics.median(x) for x in zip(*writes)]
            r = [statistics.median(x) for x in zip(*reads)]
            print(f"| {name} | {size:.1f} | {w[0]:.2f} / {w[1]:.2f} | {r[0]:.2f} / {r[1]:.2f} |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
