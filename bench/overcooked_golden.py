"""Conformance data for PaperLab's Overcooked rules, produced by HumanCompatibleAI/overcooked_ai itself.

Not part of PaperLab's product path: it writes toolkit/marl/env/overcooked/testdata/overcooked_ai.json.gz,
which TestMatchesOvercookedAI replays step by step (no Python at test time).

For each of the five classic layouts (old dynamics, one 3-onion order) two players act for STEPS steps:
overcooked_ai's GreedyHumanModel (MediumLevelActionManager with NO_COUNTERS_PARAMS) with probability
1 − EPS, a uniform random action otherwise (so episodes contain soups, collisions and idle moves).
After every step it records the joint action (indices into Action.ALL_ACTIONS: N, S, E, W, STAY,
INTERACT), each player's position, orientation and held object, every object on the grid (soups
with their onion count and cooking tick), sparse and shaped rewards by agent, featurize_state for
both players, and player 0's lossless_state_encoding as its non-zero entries (c·W·H + y·W + x, value).

    /usr/bin/python3 bench/overcooked_golden.py /path/to/overcooked_ai/src [out.json.gz]
"""
import gzip
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import overcooked_ai_import  # noqa: E402

src = sys.argv[1]
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "toolkit", "marl", "env", "overcooked", "testdata",
    "overcooked_ai.json.gz")
overcooked_ai_import.load(src)
import numpy as np  # noqa: E402
from overcooked_ai_py.agents.agent import GreedyHumanModel  # noqa: E402
from overcooked_ai_py.mdp.actions import Action  # noqa: E402
from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld  # noqa: E402
from overcooked_ai_py.planning.planners import NO_COUNTERS_PARAMS, MediumLevelActionManager  # noqa: E402

LAYOUTS = ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination",
           "counter_circuit_o_1order"]
STEPS, EPS, SEED = 400, 0.2, 1
DIRS = {(0, -1): 0, (0, 1): 1, (1, 0): 2, (-1, 0): 3}


def ints(a):
    a = np.asarray(a, dtype=float)
    assert np.all(a == np.round(a)), a
    return [int(x) for x in np.round(a)]


def record(mdp, mlam, name):
    rng = random.Random(SEED)
    agents = [GreedyHumanModel(mlam), GreedyHumanModel(mlam)]
    for i, a in enumerate(agents):
        a.reset()  # clears the index and the mdp: set them after
        a.set_agent_index(i)
        a.set_mdp(mdp)
    state = mdp.get_standard_start_state()
    steps = []
    for _ in range(STEPS):
        joint = []
        for a in agents:
            act, _ = a.action(state)
            if rng.random() < EPS:
                act = rng.choice(Action.ALL_ACTIONS)
            joint.append(act)
        state, info = mdp.get_state_transition(state, tuple(joint))
        objs = []
        for pos, o in sorted(state.objects.items()):
            if o.name == "soup":
                objs.append([pos[0], pos[1], "soup", len(o.ingredients), o._cooking_tick])
            else:
                objs.append([pos[0], pos[1], o.name, 0, 0])
        enc = np.asarray(mdp.lossless_state_encoding(state)[0])  # [W, H, 26] for player 0
        c, y, x = np.nonzero(np.transpose(enc, (2, 1, 0)))
        w, h = enc.shape[0], enc.shape[1]
        steps.append({
            "a": [Action.ACTION_TO_INDEX[j] for j in joint],
            "pos": [list(p.position) for p in state.players],
            "dir": [DIRS[tuple(p.orientation)] for p in state.players],
            "hold": [p.held_object.name if p.held_object else "" for p in state.players],
            "objects": objs,
            "sparse": ints(info["sparse_reward_by_agent"]),
            "shaped": ints(info["shaped_reward_by_agent"]),
            "feat": [ints(f) for f in mdp.featurize_state(state, mlam)],
            "lossless0": [[int(ci * w * h + yi * w + xi), int(enc[xi, yi, ci])] for ci, yi, xi in zip(c, y, x)],
        })
    return {"layout": name, "steps": steps}


data = {"source": "HumanCompatibleAI/overcooked_ai (old_dynamics=True, start_all_orders = one 3-onion soup)",
        "steps": STEPS, "eps": EPS, "seed": SEED, "layouts": []}
for name in LAYOUTS:
    mdp = OvercookedGridworld.from_layout_name(name, old_dynamics=True,
                                               start_all_orders=overcooked_ai_import.THREE_ONIONS)
    mlam = MediumLevelActionManager(mdp, NO_COUNTERS_PARAMS)
    rec = record(mdp, mlam, name)
    soups = sum(sum(s["sparse"]) for s in rec["steps"]) // 20
    print(f"{name}: {STEPS} steps, {soups} soups delivered", file=sys.stderr)
    data["layouts"].append(rec)
tmp = out + ".tmp"
with gzip.open(tmp, "wt") as f:
    json.dump(data, f, separators=(",", ":"))
os.replace(tmp, out)
print(f"wrote {out}", file=sys.stderr)
