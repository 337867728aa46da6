#!/usr/bin/python3
"""One-time converter: overcooked_ai's "dummy" 2019 human-human Overcooked trials -> JSONL.

Source (MIT licence, see README.md):
  repository  https://github.com/HumanCompatibleAI/overcooked_ai
  commit      739950a079cdaed5a44fcc662efc40244c205d06
  file        src/human_aware_rl/static/human_data/dummy/dummy_2019_hh_trials_all.pickle
              (a pickled pandas DataFrame, 3,546 rows, one row per timestep)

This script is PaperLab's own code; it imports nothing from overcooked_ai. It needs only Debian's
python3-pandas (apt-get install -y python3-pandas; the pickle was written by pandas 1.x and loads
with 1.5.3). Run it once, from the repository root:

  git --git-dir=<overcooked_ai git dir> show \
      739950a:src/human_aware_rl/static/human_data/dummy/dummy_2019_hh_trials_all.pickle > /tmp/dummy.pickle
  /usr/bin/python3 datasets/overcooked_human/convert.py /tmp/dummy.pickle datasets/overcooked_human

It writes one file per trial, <layout_name>.jsonl (the dummy data has exactly one trial per
layout; the script refuses more), one JSON object per timestep, in timestep order. The schema is in
README.md; the Go package datasets/overcooked_human reads it. Every assumption about the columns is
asserted, so a different input fails loudly instead of converting silently.
"""

import ast
import json
import os
import sys

import pandas as pd

# overcooked_ai's Direction tuples (x, y), y down, and its "interact" -> PaperLab action names.
DIRS = {(0, -1): "N", (0, 1): "S", (1, 0): "E", (-1, 0): "W", (0, 0): "STAY"}
COLUMNS = {
    "Unnamed: 0", "cur_gameloop", "joint_action", "layout", "layout_name", "reward", "score",
    "state", "time_elapsed", "time_left", "trial_id", "player_0_is_human", "player_1_is_human",
    "player_0_id", "player_1_id", "cur_gameloop_total", "score_total", "button_press",
    "button_press_total", "timesteps_since_interact", "button_presses_per_timstep",
}


def action(a):
    if isinstance(a, str):
        assert a.lower() == "interact", a
        return "INTERACT"
    return DIRS[tuple(a)]


def soup(o, pots):
    """A soup dict (new overcooked_ai schema) -> (onions, tick); checks its flags agree."""
    ings = o["_ingredients"]
    assert all(i["name"] == "onion" for i in ings), o
    n, tick = len(ings), o["_cooking_tick"]
    assert o["cooking_tick"] == tick, o
    assert 1 <= n <= 3, o
    if tick == -1:
        assert o["is_idle"] and not o["is_cooking"] and not o["is_ready"] and o["cook_time"] == -1, o
    else:
        assert n == 3 and 1 <= tick <= 20 and o["cook_time"] == 20, o
        assert o["is_ready"] == (tick == 20) and o["is_cooking"] == (tick < 20) and not o["is_idle"], o
    if pots is not None and tuple(o["position"]) not in pots:
        assert n == 3 and tick == 20, ("soup on a counter must be finished", o)
    return n, tick


def convert(df, outdir):
    assert set(df.columns) == COLUMNS, sorted(set(df.columns) ^ COLUMNS)
    written = []
    for trial_id, g in df.groupby("trial_id", sort=False):
        g = g.sort_values("cur_gameloop")
        first = g.iloc[0]
        layout = first["layout_name"]
        grid = ast.literal_eval(first["layout"])  # a Python list literal of row strings
        assert all(x == first["layout"] for x in g["layout"]), "layout changes within a trial"
        pots = {(x, y) for y, row in enumerate(grid) for x, c in enumerate(row) if c == "P"}
        for col in ["layout_name", "player_0_id", "player_1_id", "player_0_is_human", "player_1_is_human",
                    "cur_gameloop_total", "score_total"]:
            assert g[col].nunique() == 1, (trial_id, col)
        assert bool(first["player_0_is_human"]) and bool(first["player_1_is_human"]), "not human-human"
        assert list(g["cur_gameloop"]) == list(range(len(g))), "cur_gameloop is not 0, 1, 2, ..."
        assert first["cur_gameloop_total"] == len(g)
        total, lines = 0.0, []
        for _, r in g.iterrows():
            st = r["state"]
            assert isinstance(st, str), type(st)  # a JSON string, as the human-data README says
            st = json.loads(st)
            assert st["timestep"] == 0 and st["bonus_orders"] == [], "unexpected state fields"
            ja = r["joint_action"]
            assert isinstance(ja, str), type(ja)  # a Python literal: "['INTERACT', [0, -1]]"
            ja = ast.literal_eval(ja)
            assert len(ja) == 2
            players = []
            for p in st["players"]:
                h = p["held_object"]
                held = ""
                if h is not None:
                    held = h["name"]
                    assert held in ("onion", "dish", "soup"), h
                    assert h["position"] == p["position"], h
                    if held == "soup":
                        assert soup(h, None) == (3, 20), ("held soup must be finished", h)
                players.append({"pos": p["position"], "facing": DIRS[tuple(p["orientation"])], "holding": held})
            objects = []
            for o in st["objects"]:
                x, y = o["position"]
                assert grid[y][x] in "XP", ("object off a counter or pot", o)
                e = {"pos": o["position"], "name": o["name"]}
                if o["name"] == "soup":
                    e["onions"], e["tick"] = soup(o, pots)
                else:
                    assert o["name"] in ("onion", "dish") and grid[y][x] == "X", o
                objects.append(e)
            objects.sort(key=lambda e: (e["pos"][1], e["pos"][0]))
            reward, score = float(r["reward"]), float(r["score"])
            total += reward
            assert score == total, "score is not the running sum of reward"
            lines.append({
                "layout": layout,
                "trial_id": int(trial_id),
                "player_ids": [int(r["player_0_id"]), int(r["player_1_id"])],
                "t": int(r["cur_gameloop"]),
                "grid": grid,
                "players": players,
                "objects": objects,
                "actions": [action(a) for a in ja],
                "reward": int(reward) if reward.is_integer() else reward,
                "score": int(score) if score.is_integer() else score,
                "time_left": float(r["time_left"]),
                "time_elapsed": float(r["time_elapsed"]),
            })
        assert total == first["score_total"]
        path = os.path.join(outdir, layout + ".jsonl")
        assert path not in written, "more than one trial on " + layout
        with open(path, "w") as f:
            for line in lines:
                f.write(json.dumps(line, separators=(",", ":")) + "\n")
        written.append(path)
        print(f"{path}: trial {trial_id}, {len(lines)} steps, score {total:g}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: convert.py dummy_2019_hh_trials_all.pickle OUTDIR")
    convert(pd.read_pickle(sys.argv[1]), sys.argv[2])
