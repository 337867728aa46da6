"""Measuring peer for Overcooked env speed: HumanCompatibleAI/overcooked_ai's own Python rules.

Not part of PaperLab's product path. It imports overcooked_ai_py from the source folder given as the
first argument (a checkout's src/, e.g. `git clone https://github.com/HumanCompatibleAI/overcooked_ai`)
and needs only numpy (Debian python3-numpy): it uses OvercookedGridworld directly (old_dynamics=True,
cramped_room), not OvercookedEnv, whose module also imports cv2, gymnasium and pygame.

Prints lines `peer <name> <steps/s>` for
  rules     mdp.get_state_transition with uniform random joint actions, restarting every 400 steps
  lossless  the same plus both players' lossless_state_encoding (overcooked_ai's observation planes)
Each is timed `reps` times over `steps` steps; every repetition is printed.
"""
import os
import random
import sys
import time
import types

src, reps, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, src)
# The package's __init__ registers a gymnasium env; skip it (only the mdp modules are used).
pkg = types.ModuleType("overcooked_ai_py")
pkg.__path__ = [os.path.join(src, "overcooked_ai_py")]
sys.modules["overcooked_ai_py"] = pkg
from overcooked_ai_py.mdp.actions import Action  # noqa: E402
from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld  # noqa: E402

three_onions = [{"ingredients": ["onion", "onion", "onion"]}]
mdp = OvercookedGridworld.from_layout_name("cramped_room", old_dynamics=True, start_all_orders=three_onions)
rng = random.Random(1)
acts = Action.ALL_ACTIONS


def run(encode):
    state, t = mdp.get_standard_start_state(), 0
    start = time.perf_counter()
    for _ in range(steps):
        joint = (rng.choice(acts), rng.choice(acts))
        state, _ = mdp.get_state_transition(state, joint)
        if encode:
            mdp.lossless_state_encoding(state)
        t += 1
        if t == 400:
            state, t = mdp.get_standard_start_state(), 0
    return steps / (time.perf_counter() - start)


for _ in range(reps):
    for name, enc in (("rules", False), ("lossless", True)):
        print(f"peer {name} {run(enc):.1f}", flush=True)
