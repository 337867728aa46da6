#!/usr/bin/env python3
"""PyTorch peer of PaperLab's PPO loop on Overcooked (bench/ppobench, mode sp), for side-by-side ratios.

Measuring peer only (never in PaperLab's product path). The same loop at the E3T authors' settings
(marl/e3t.Authors): 30 cramped_room games × 400 steps = 12,000 environment steps per iteration, played
with overcooked_ai's own rules and featurize_state (both players' 96 values × 0.2, the planner
MediumLevelActionManager(mdp, NO_COUNTERS_PARAMS), called once per state: its result holds both
players' vectors); each step the actor (96→64→64→6, tanh) samples the
learner's seat and then the other seat of every game (two batched forward passes, as PaperLab); reward =
sparse + shaping factor × the learner's shaped reward; then the critic (96→64→64→1) on the 12,000
observations, GAE (γ 0.99, λ 0.98, no bootstrap at the horizon), normalised advantages, and 8 epochs × 6
shuffled mini-batches of PPO-clip (clip 0.05, entropy 0.1) for the actor, then 8 × 6 of the critic's
squared error, each with its own Adam (lr 1e-3) and gradient-norm clip 0.1.

  ppo_peer.py SRC THREADS ITERS [WARMUP]

SRC is an overcooked_ai checkout's src/ (bench/overcooked_ai_import.py stubs its rendering imports);
prints `torch<major.minor> sp <env steps/s> <rollout s> <update s>` per timed iteration. Runs on Debian's
torch 1.13 (/usr/bin/python3) and on the pinned current torch in bench/.venv (bench/peers.sh need_torch2).

Until 2026-12-05 it featurised every state twice (once per seat, taking one vector of each result);
featurisation is most of the peer's step, so its results before then understate the peer.
"""
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn

src, threads, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
warmup = int(sys.argv[4]) if len(sys.argv) > 4 else 1
torch.set_num_threads(threads)
torch.manual_seed(1)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import overcooked_ai_import  # noqa: E402

overcooked_ai_import.load(src)
from overcooked_ai_py.mdp.actions import Action  # noqa: E402
from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld  # noqa: E402
from overcooked_ai_py.planning.planners import NO_COUNTERS_PARAMS, MediumLevelActionManager  # noqa: E402

PEER = "torch" + ".".join(torch.__version__.split(".")[:2])
ENVS, H, OBS, NA, HID = 30, 400, 96, 6, 64
EPOCHS, MB, CLIP, ENT, LR, GN, GAMMA, LAM, SCALE = 8, 6, 0.05, 0.1, 1e-3, 0.1, 0.99, 0.98, 0.2

mdp = OvercookedGridworld.from_layout_name("cramped_room", old_dynamics=True,
                                         start_all_orders=overcooked_ai_import.THREE_ONIONS)
mlam = MediumLevelActionManager(mdp, NO_COUNTERS_PARAMS)
ACTS = Action.ALL_ACTIONS


def mlp(out, gain):
    net = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, HID), nn.Tanh(), nn.Linear(HID, out))
    for i, m in enumerate(l for l in net if isinstance(l, nn.Linear)):
        nn.init.normal_(m.weight, std=(gain if i == 2 else 2 ** 0.5) / m.in_features ** 0.5)
        nn.init.zeros_(m.bias)
    return net


actor, critic = mlp(NA, 0.01), mlp(1, 1.0)
opt_a, opt_c = torch.optim.Adam(actor.parameters(), lr=LR), torch.optim.Adam(critic.parameters(), lr=LR)
rng = np.random.default_rng(1)


def observe(states, seats):
    """Both seats' observations of every game: featurize_state returns every player's vector (element
    i is player i's), so it is called once per state, as PaperLab featurises once per step."""
    feats = [mdp.featurize_state(s, mlam) for s in states]
    mine = np.stack([np.asarray(f[i], dtype=np.float32) for f, i in zip(feats, seats)])
    other = np.stack([np.asarray(f[1 - i], dtype=np.float32) for f, i in zip(feats, seats)])
    return torch.tensor(mine * SCALE), torch.tensor(other * SCALE)


def iteration(factor):
    t0 = time.perf_counter()
    states = [mdp.get_standard_start_state() for _ in range(ENVS)]
    seat = rng.integers(0, 2, ENVS)
    obs, acts, logp, rew = [], [], [], np.zeros((H, ENVS))
    with torch.no_grad():
        for t in range(H):
            o_ego, o_other = observe(states, seat)
            d = torch.distributions.Categorical(logits=actor(o_ego))
            a = d.sample()
            obs.append(o_ego), acts.append(a), logp.append(d.log_prob(a))
            a_other = torch.distributions.Categorical(logits=actor(o_other)).sample()
            for k in range(ENVS):
                joint = [None, None]
                joint[seat[k]], joint[1 - seat[k]] = ACTS[a[k]], ACTS[a_other[k]]
                states[k], info = mdp.get_state_transition(states[k], tuple(joint))
                rew[t, k] = sum(info["sparse_reward_by_agent"]) + factor * info["shaped_reward_by_agent"][seat[k]]
    t1 = time.perf_counter()
    obs, acts, logp = torch.cat(obs), torch.cat(acts), torch.cat(logp)
    with torch.no_grad():
        v = critic(obs).squeeze(-1).numpy().reshape(H, ENVS)
    adv, last = np.zeros((H, ENVS)), np.zeros(ENVS)
    for t in reversed(range(H)):
        nv = v[t + 1] if t + 1 < H else 0.0
        last = rew[t] + GAMMA * nv - v[t] + GAMMA * LAM * last
        adv[t] = last
    ret = torch.tensor((adv + v).reshape(-1), dtype=torch.float32)
    adv = torch.tensor(adv.reshape(-1), dtype=torch.float32)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    n, size = len(adv), len(adv) // MB
    for _ in range(EPOCHS):
        perm = torch.randperm(n)
        for k in range(0, n - size + 1, size):
            i = perm[k:k + size]
            d = torch.distributions.Categorical(logits=actor(obs[i]))
            ratio = torch.exp(d.log_prob(acts[i]) - logp[i])
            loss = -torch.min(ratio * adv[i], ratio.clamp(1 - CLIP, 1 + CLIP) * adv[i]).mean() - ENT * d.entropy().mean()
            opt_a.zero_grad(), loss.backward()
            nn.utils.clip_grad_norm_(actor.parameters(), GN), opt_a.step()
    for _ in range(EPOCHS):
        perm = torch.randperm(n)
        for k in range(0, n - size + 1, size):
            i = perm[k:k + size]
            loss = ((critic(obs[i]).squeeze(-1) - ret[i]) ** 2).mean()
            opt_c.zero_grad(), loss.backward()
            nn.utils.clip_grad_norm_(critic.parameters(), GN), opt_c.step()
    return t1 - t0, time.perf_counter() - t1


for it in range(warmup + iters):
    ro, up = iteration(1.0)
    if it >= warmup:
        print(f"{PEER} sp {ENVS * H / (ro + up):.0f} {ro:.4f} {up:.4f}", flush=True)
