"""lb-foraging's step as the speed peer of PaperLab's LBF (bench/lbf.sh): replays every recorded
trajectory of toolkit/marl/env/testdata/lbf (the same initial states and joint actions PaperLab's
replay test uses) through semitable/lb-foraging's ForagingEnv.step, and prints the seconds per step
of each round. Needs numpy; gymnasium is stood in for (bench/lbf_import.py: its Box.contains check is
a no-op here, so the peer is, if anything, a little faster than with real gymnasium).

    /usr/bin/python3 bench/lbf_peer.py LB_FORAGING_CHECKOUT ROUNDS
"""
import glob
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lbf_import  # noqa: E402
import lbf_record  # noqa: E402


def main():
    src, rounds = sys.argv[1], int(sys.argv[2])
    env_mod = lbf_import.load(src)
    here = os.path.dirname(os.path.abspath(__file__))
    trajs = []
    for path in sorted(glob.glob(os.path.join(here, "..", "toolkit", "marl", "env", "testdata", "lbf", "*.jsonl"))):
        lines = open(path).read().splitlines()
        trajs += [json.loads(l) for l in lines[1:]]
    for r in range(rounds):
        steps, total = 0, 0.0
        for t in trajs:
            e = env_mod.ForagingEnv(**lbf_record.TASKS[t["task"]])
            e.reset(seed=t["seed"])
            e.field[:] = 0
            for p, (row, col, lvl) in zip(e.players, t["initial"]["players"]):
                p.setup((row, col), lvl, e.field_size)
            for row, col, lvl in t["initial"]["foods"]:
                e.field[row, col] = lvl
            e._food_spawned = e.field.sum()
            e.current_step, e._game_over = 0, False
            e._gen_valid_moves()
            acts = [s["actions"] for s in t["steps"]]
            t0 = time.perf_counter()
            for a in acts:
                e.step(a)
            total += time.perf_counter() - t0
            steps += len(acts)
        print(f"lb-foraging round {r + 1}: {steps} steps, {1e6 * total / steps:.2f} us/step")


if __name__ == "__main__":
    main()
