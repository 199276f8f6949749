"""Shared helpers for the hydraulics tests (imported by name: the test folders are not packages)."""
import numpy as np


def finite_difference_jacobian(circuit, t, z, y, ydot, step=1e-6):
    """Central differences of rates and forces wrt z, y, ydot (relative steps), as the protocol's blocks."""
    def both(zz, yy, yd):
        ev = circuit.evaluate(t, zz, yy, yd)
        return np.concatenate((ev.rates, ev.forces))

    blocks = {}
    for key, base in (("z", z), ("y", y), ("ydot", ydot)):
        cols = []
        for i in range(base.size):
            h_i = step * max(1.0, abs(base[i]))
            plus, minus = base.copy(), base.copy()
            plus[i] += h_i
            minus[i] -= h_i
            args_p = {"z": z, "y": y, "ydot": ydot}
            args_m = dict(args_p)
            args_p[key], args_m[key] = plus, minus
            cols.append((both(args_p["z"], args_p["y"], args_p["ydot"])
                         - both(args_m["z"], args_m["y"], args_m["ydot"])) / (2 * h_i))
        mat = np.array(cols).T if cols else np.zeros((z.size + y.size, 0))
        blocks[f"rates_{key}"] = mat[:z.size]
        blocks[f"forces_{key}"] = mat[z.size:]
    return blocks
