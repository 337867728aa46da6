"""JaxMARL SMAX's environment speed with random available actions: the peer of the Go environment's
step benchmark (bench/smax_speed.sh runs both, side by side). Measuring peer only: never in
PaperLab's product path or `make test`.

For each number of environments it jits SMAX's step (HeuristicEnemySMAX, JaxMARL's MAPPO settings)
vmapped over the environments, with auto-reset (MultiAgentEnv.step) and uniformly random available
actions drawn inside the jitted function, runs a scan of `steps` steps twice to compile, then times
`reps` scans and prints the median environment steps per second (one environment step = one step
of one copy).
"""

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
from jaxmarl.environments.smax import HeuristicEnemySMAX, map_name_to_scenario


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="3m")
    ap.add_argument("--envs", default="1,16,256,4096")
    ap.add_argument("--steps", type=int, default=128)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    env = HeuristicEnemySMAX(scenario=map_name_to_scenario(args.scenario), see_enemy_actions=True, walls_cause_death=True, attack_mode="closest")

    def one_step(carry, _):
        key, state = carry
        key, k_act, k_step = jax.random.split(key, 3)
        avail = env.get_avail_actions(state)
        keys = jax.random.split(k_act, env.num_agents)
        acts = {
            a: jax.random.choice(keys[i], avail[a].shape[0], p=avail[a] / avail[a].sum())
            for i, a in enumerate(env.agents)
        }
        _, state, _, _, _ = env.step(k_step, state, acts)
        return (key, state), None

    for n in [int(x) for x in args.envs.split(",")]:
        keys = jax.random.split(jax.random.PRNGKey(0), n)
        _, states = jax.vmap(env.reset)(keys)

        @jax.jit
        def run(keys, states):
            def one(k, s):
                (_, s), _ = jax.lax.scan(one_step, (k, s), None, length=args.steps)
                return s

            return jax.vmap(one)(keys, states)

        # Two untimed calls: the first compiles for the reset states, the second for the states a
        # step returns (their dtypes differ in weak typing), after which the cache holds.
        out = run(keys, run(keys, states))
        jax.block_until_ready(out)
        times = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            out = run(keys, out)
            jax.block_until_ready(out)
            times.append(time.perf_counter() - t0)
        sps = n * args.steps / statistics.median(times)
        print(f"jax smax {args.scenario} {args.label} envs {n} steps/s {sps:.0f}", flush=True)


if __name__ == "__main__":
    main()
