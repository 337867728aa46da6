"""Record reference trajectories from JaxMARL's SMAX for the Go replay test (toolkit/marl/env/smax).

Measuring peer / oracle only: never in PaperLab's product path or `make test` (the Go test reads the
committed file). Run with bench/smax_record.sh, which makes bench/.venv-jax from
bench/requirements-jax.txt (jaxmarl 0.2.0 on a CPU jax).

For each scenario and ally policy ("random": uniform over the available actions; "nearest": every
ally attacks the nearest enemy in range, else moves toward the nearest live enemy) it plays episodes
of HeuristicEnemySMAX (attack_mode closest, see_enemy_actions, walls_cause_death: JaxMARL's MAPPO
settings) from reset keys PRNGKey(seed). SMAX draws its randomness from JAX keys, so every step
records what the Go environment cannot draw itself: the enemies' actions (computed here with the
same action key the step uses) and each world tick's cooldown jitter (the same key chain as
step_env_no_decode's scan), besides the state before and after, the allies' reward and done; the
first `full` episodes of each also record every ally's observation, the available actions and the
world state after each step. One JSON object per episode, one per line, gzipped.
"""

import argparse
import gzip
import json
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jaxmarl.environments.smax import HeuristicEnemySMAX, map_name_to_scenario


def f32(x):
    """A float32 array as a nested list of floats (shortest repr that round-trips as float32)."""
    return np.asarray(x, dtype=np.float32).tolist()


def state_dict(s):
    st = s.state
    return {
        "pos": f32(st.unit_positions),
        "health": f32(st.unit_health),
        "alive": np.asarray(st.unit_alive).astype(int).tolist(),
        "cooldown": f32(st.unit_weapon_cooldowns),
        "prev_move": f32(st.prev_movement_actions),
        "prev_attack": np.asarray(st.prev_attack_actions).astype(int).tolist(),
        "steps": int(st.step),
        "enemy_target": f32(s.enemy_policy_state.default_target),
        "enemy_attacked": np.asarray(s.enemy_policy_state.last_attacked_enemy).astype(int).tolist(),
    }


def jitters(env, key):
    """The cooldown jitter of every world tick and unit that step_env_no_decode(key, …) draws."""
    inner = env._env
    out = []
    step_key = key
    for _ in range(inner.world_steps_per_env_step):
        step_key, world_key = jax.random.split(step_key)
        keys = jax.random.split(world_key, num=inner.num_agents)
        dev = jax.vmap(
            lambda k: jax.random.uniform(k, minval=-inner.time_per_step, maxval=2 * inner.time_per_step)
        )(keys)
        out.append(f32(dev))
    return out


def nearest_actions(env, s):
    """Every live ally attacks the nearest enemy in range, else moves toward the nearest live enemy."""
    st = s.state
    pos = np.asarray(st.unit_positions)
    alive = np.asarray(st.unit_alive)
    avail = env.get_avail_actions(s)
    acts = {}
    na, nu = env.num_allies, env._env.num_agents  # the wrapper's num_agents counts the allies only
    for i, agent in enumerate(env.agents):
        mask = np.asarray(avail[agent])
        if not alive[i]:
            acts[agent] = 4
            continue
        enemies = [j for j in range(na, nu) if alive[j]]
        if not enemies:
            acts[agent] = 4
            continue
        d = {j: float(np.linalg.norm(pos[j] - pos[i])) for j in enemies}
        shoot = [j for j in enemies if mask[5 + j - na]]
        if shoot:
            j = min(shoot, key=lambda j: (d[j], j))
            acts[agent] = 5 + j - na
            continue
        j = min(enemies, key=lambda j: (d[j], j))
        v = pos[j] - pos[i]
        acts[agent] = int(np.argmax([v[1], v[0], -v[1], -v[0]]))
    return acts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenarios", default="3m,2s3z")
    ap.add_argument("--policies", default="random,nearest")
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--full", type=int, default=3, help="episodes per (scenario, policy) with observations")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with gzip.open(args.out, "wt") as f:
        for name in args.scenarios.split(","):
            env = HeuristicEnemySMAX(
                scenario=map_name_to_scenario(name), see_enemy_actions=True, walls_cause_death=True, attack_mode="closest"
            )
            reset = jax.jit(env.reset)
            step = jax.jit(env.step_env)
            enemy_obs_fn = jax.jit(env._env.get_obs_unit_list)
            enemy_act_fn = jax.jit(env.get_enemy_actions)
            for policy in args.policies.split(","):
                for ep in range(args.episodes):
                    seed = 1000 * ep + 7
                    rng = np.random.default_rng(seed)
                    _, s = reset(jax.random.PRNGKey(seed))
                    full = ep < args.full
                    rec = {"scenario": name, "policy": policy, "seed": seed, "start": state_dict(s), "steps": []}
                    key = jax.random.PRNGKey(seed + 1)
                    for t in range(200):
                        key, step_key = jax.random.split(key)
                        if policy == "random":
                            avail = env.get_avail_actions(s)
                            acts = {a: int(rng.choice(np.flatnonzero(np.asarray(avail[a])))) for a in env.agents}
                        else:
                            acts = nearest_actions(env, s)
                        # step_env's own split: the action key picks the enemies' actions, the rest
                        # drives the world ticks.
                        inner_key, action_key = jax.random.split(step_key)
                        eobs = enemy_obs_fn(s.state)
                        eobs = jnp.array([eobs[a] for a in env.enemy_agents])
                        eacts, _ = enemy_act_fn(action_key, s.enemy_policy_state, eobs)
                        obs, s2, rew, done, _ = step(step_key, s, acts)
                        row = {
                            "actions": [acts[a] for a in env.agents],
                            "enemy_actions": [int(eacts[a]) for a in env.enemy_agents],
                            "jitter": jitters(env, inner_key),
                            "reward": float(rew[env.agents[0]]),
                            "done": bool(done["__all__"]),
                            "after": state_dict(s2),
                        }
                        if full:
                            av = env.get_avail_actions(s2)
                            row["obs"] = [f32(obs[a]) for a in env.agents]
                            row["avail"] = [np.asarray(av[a]).astype(int).tolist() for a in env.agents]
                            row["world_state"] = f32(obs["world_state"])
                        rec["steps"].append(row)
                        s = s2
                        if row["done"]:
                            break
                    f.write(json.dumps(rec) + "\n")
                    print(name, policy, ep, "steps", len(rec["steps"]), "won" if rec["steps"][-1]["reward"] >= 1 else "", file=sys.stderr)
    print("wrote", args.out, file=sys.stderr)


if __name__ == "__main__":
    main()
