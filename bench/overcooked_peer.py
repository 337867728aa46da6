"""Measuring peer for Overcooked env speed: HumanCompatibleAI/overcooked_ai's own Python rules.

Not part of PaperLab's product path. It imports overcooked_ai_py from the source folder given as the
first argument (a checkout's src/, e.g. `git clone https://github.com/HumanCompatibleAI/overcooked_ai`)
and needs only numpy (Debian python3-numpy): it uses OvercookedGridworld directly (old_dynamics=True,
cramped_room), not OvercookedEnv; rendering dependencies are stubbed (bench/overcooked_ai_import.py).

Prints lines `peer <name> <steps/s>` for
  rules       mdp.get_state_transition with uniform random joint actions, restarting every 400 steps
  lossless    the same plus both players' lossless_state_encoding (overcooked_ai's observation planes)
  featurized  the same plus featurize_state for both players (the 96-value vectors PaperLab's E3T
              trains on), with MediumLevelActionManager(mdp, NO_COUNTERS_PARAMS) as its planner
Each is timed `reps` times over `steps` steps; every repetition is printed.
"""
import os
import random
import sys
import time

src, reps, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import overcooked_ai_import  # noqa: E402

overcooked_ai_import.load(src)
from overcooked_ai_py.mdp.actions import Action  # noqa: E402
from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld  # noqa: E402
from overcooked_ai_py.planning.planners import NO_COUNTERS_PARAMS, MediumLevelActionManager  # noqa: E402

mdp = OvercookedGridworld.from_layout_name("cramped_room", old_dynamics=True,
                                         start_all_orders=overcooked_ai_import.THREE_ONIONS)
rng = random.Random(1)
acts = Action.ALL_ACTIONS
mlam = MediumLevelActionManager(mdp, NO_COUNTERS_PARAMS)


def run(encode):
    state, t = mdp.get_standard_start_state(), 0
    start = time.perf_counter()
    for _ in range(steps):
        joint = (rng.choice(acts), rng.choice(acts))
        state, _ = mdp.get_state_transition(state, joint)
        if encode == "lossless":
            mdp.lossless_state_encoding(state)
        elif encode == "featurized":
            mdp.featurize_state(state, mlam)
        t += 1
        if t == 400:
            state, t = mdp.get_standard_start_state(), 0
    return steps / (time.perf_counter() - start)


for _ in range(reps):
    for name in ("rules", "lossless", "featurized"):
        print(f"peer {name} {run(name):.1f}", flush=True)
