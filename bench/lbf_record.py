"""Records Level-Based Foraging trajectories from semitable/lb-foraging itself, for PaperLab's replay
test (toolkit/marl/env/lbf_replay_test.go). Run once; the output is committed as test data.

    /usr/bin/python3 bench/lbf_record.py LB_FORAGING_CHECKOUT OUT_DIR

Needs numpy (Debian python3-numpy); gymnasium is replaced by stand-ins (bench/lbf_import.py). For each
task the experiments use, 5 trajectories under uniformly random actions and 5 under a greedy loader
(walk to the nearest food, LOAD when next to one), each from lb-foraging's own reset with a seed and
run until the episode ends (50 steps, or earlier when every food is gone). One JSON line per
trajectory: the initial state (players' positions and levels, foods with levels, the food level
sum that normalises rewards), then per step the joint action, players, foods, rewards, done, each
player's vector observation and — for the partially observed task on every trajectory, for the
others on the first trajectory of each policy — each player's grid observation (agents, foods,
access layers).
"""
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lbf_import  # noqa: E402

TASKS = {
    # PaperLab scenario name: lb-foraging ForagingEnv arguments
    "8x8-2p-2f-coop": dict(players=2, min_player_level=1, max_player_level=2, min_food_level=1, max_food_level=None,
                           field_size=(8, 8), max_num_food=2, sight=8, max_episode_steps=50, force_coop=True),
    # TAPE's partial-coalition task: three level-1 players, foods of levels 1, 2 and 3 (PaperLab's
    # "-spread"; in lb-foraging, per-food level lists, which it permutes over the spawn order).
    "8x8-3p-3f-lvl1-spread": dict(players=3, min_player_level=1, max_player_level=1, min_food_level=[1, 2, 3],
                                  max_food_level=[1, 2, 3], field_size=(8, 8), max_num_food=3, sight=8,
                                  max_episode_steps=50, force_coop=False),
    "8x8-2p-2f-2s-coop": dict(players=2, min_player_level=1, max_player_level=2, min_food_level=1, max_food_level=None,
                              field_size=(8, 8), max_num_food=2, sight=2, max_episode_steps=50, force_coop=True),
    "8x8-2p-2f-coop-pen": dict(players=2, min_player_level=1, max_player_level=2, min_food_level=1, max_food_level=None,
                               field_size=(8, 8), max_num_food=2, sight=8, max_episode_steps=50, force_coop=True,
                               penalty=0.1),
}


def state(e):
    players = [[int(p.position[0]), int(p.position[1]), int(p.level)] for p in e.players]
    rows, cols = np.nonzero(e.field)
    foods = [[int(r), int(c), int(e.field[r, c])] for r, c in zip(rows, cols)]
    return players, foods


def grid_obs(e):
    e._grid_observation = True
    try:
        return [np.asarray(o).astype(int).tolist() for o in e._make_gym_obs()]
    finally:
        e._grid_observation = False


def greedy(e, rng):
    acts = []
    rows, cols = np.nonzero(e.field)
    for p in e.players:
        r, c = p.position
        if e.adjacent_food(r, c) > 0:
            acts.append(5)
            continue
        if len(rows) == 0:
            acts.append(0)
            continue
        d = [abs(fr - r) + abs(fc - c) for fr, fc in zip(rows, cols)]
        k = int(np.argmin(d))
        fr, fc = rows[k], cols[k]
        moves = []
        if fr < r - 1 or (fr < r and fc != c):
            moves.append(1)
        if fr > r + 1 or (fr > r and fc != c):
            moves.append(2)
        if fc < c - 1 or (fc < c and fr != r):
            moves.append(3)
        if fc > c + 1 or (fc > c and fr != r):
            moves.append(4)
        acts.append(int(rng.choice(moves)) if moves else int(rng.integers(0, 6)))
    return acts


def record(env_mod, name, kwargs, policy, seed, with_grid):
    e = env_mod.ForagingEnv(**kwargs)
    obs, _ = e.reset(seed=seed)
    rng = np.random.default_rng(1000 + seed)
    players, foods = state(e)
    traj = {"task": name, "policy": policy, "seed": seed,
            "initial": {"players": players, "foods": foods, "food_spawned": int(e._food_spawned),
                        "obs": [np.asarray(o).tolist() for o in obs]}}
    if with_grid:
        traj["initial"]["grid"] = grid_obs(e)
    steps = []
    done = False
    while not done:
        acts = [int(a) for a in rng.integers(0, 6, size=len(e.players))] if policy == "random" else greedy(e, rng)
        obs, rewards, done, truncated, _ = e.step(acts)
        players, foods = state(e)
        step = {"actions": acts, "players": players, "foods": foods, "rewards": [float(r) for r in rewards],
                "done": bool(done), "obs": [np.asarray(o).tolist() for o in obs]}
        if with_grid:
            step["grid"] = grid_obs(e)
        steps.append(step)
    traj["steps"] = steps
    return traj


def main():
    src, out = sys.argv[1], sys.argv[2]
    env_mod = lbf_import.load(src)
    commit = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    os.makedirs(out, exist_ok=True)
    for name, kwargs in TASKS.items():
        path = os.path.join(out, name + ".jsonl")
        with open(path + ".tmp", "w") as f:
            f.write(json.dumps({"source": "semitable/lb-foraging", "commit": commit, "task": name,
                                "kwargs": {k: (list(v) if isinstance(v, tuple) else v) for k, v in kwargs.items()}}) + "\n")
            for policy, seeds in (("random", range(1, 6)), ("greedy", range(11, 16))):
                for i, seed in enumerate(seeds):
                    with_grid = kwargs["sight"] < kwargs["field_size"][0] or i == 0
                    f.write(json.dumps(record(env_mod, name, kwargs, policy, seed, with_grid), separators=(",", ":")) + "\n")
        os.replace(path + ".tmp", path)
        print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
