"""A JAX MAPPO iteration on JaxMARL's SMAX: the peer of PaperLab's MAPPO iteration on SMAX 3m
(bench/smax_ppo.sh runs both side by side). Measuring peer only: never in PaperLab's product path
or `make test`.

Written for this benchmark after the structure of JaxMARL's own MAPPO for SMAX
(baselines/MAPPO/mappo_rnn_smax.py at FLAIROx/JaxMARL c793d09, which the pip package does not ship)
and at the smax experiment's settings, so that both sides do the same work: an MLP of two tanh
layers of 64 instead of JaxMARL's GRU (as PaperLab's marl/ppo), the actor reading each agent's
observation with its one-hot id and masking unavailable actions, a central critic reading the
world state with the agent's id (JaxMARL's SMAXWorldStateWrapper), 64 games × 64 steps per
iteration, GAE (γ 0.99, λ 0.95), 4 epochs × 4 mini-batches of PPO-clip (0.2, no entropy bonus)
for the actor and of squared error for the critic, each with its own Adam (2e-3) and gradient-norm
clip 0.25. One iteration — the rollout (a lax.scan over steps of the vmapped environment, with
auto-reset), GAE and the update — is one jitted function; it runs `--warmup` times (at least 2: the
second call compiles again, the state the first returns having other weak types), then `--iters`
iterations are timed one by one (block_until_ready) and the median is printed.
"""

import argparse
import statistics
import time

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxmarl.environments.smax import HeuristicEnemySMAX, map_name_to_scenario


class MLP(nn.Module):
    out: int
    hidden: int = 64
    last_gain: float = 0.01

    @nn.compact
    def __call__(self, x):
        init = nn.initializers.orthogonal
        x = nn.tanh(nn.Dense(self.hidden, kernel_init=init(np.sqrt(2)))(x))
        x = nn.tanh(nn.Dense(self.hidden, kernel_init=init(np.sqrt(2)))(x))
        return nn.Dense(self.out, kernel_init=init(self.last_gain))(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="3m")
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--minibatches", type=int, default=4)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    if args.warmup < 2:
        ap.error("--warmup must be at least 2 (the first two calls compile)")
    env = HeuristicEnemySMAX(scenario=map_name_to_scenario(args.scenario), see_enemy_actions=True, walls_cause_death=True, attack_mode="closest")
    agents = env.agents
    n, E, T = len(agents), args.envs, args.steps
    na = env.action_space(agents[0]).n
    ids = jnp.eye(n)

    def actor_in(obs):  # [E, n, obs + n]
        o = jnp.stack([obs[a] for a in agents], axis=1)
        return jnp.concatenate([o, jnp.broadcast_to(ids, (o.shape[0], n, n))], -1)

    def critic_in(obs):  # [E, n, world state + n]
        ws = jnp.broadcast_to(obs["world_state"][:, None, :], (obs["world_state"].shape[0], n, obs["world_state"].shape[-1]))
        return jnp.concatenate([ws, jnp.broadcast_to(ids, (ws.shape[0], n, n))], -1)

    def avail_of(state):  # [E, n, na]
        av = jax.vmap(env.get_avail_actions)(state)
        return jnp.stack([av[a] for a in agents], axis=1)

    key = jax.random.PRNGKey(0)
    key, k_reset, k_a, k_c = jax.random.split(key, 4)
    obs, state = jax.vmap(env.reset)(jax.random.split(k_reset, E))
    actor, critic = MLP(na, last_gain=0.01), MLP(1, last_gain=1.0)
    pa = actor.init(k_a, actor_in(obs))
    pc = critic.init(k_c, critic_in(obs))
    opt_a = optax.chain(optax.clip_by_global_norm(0.25), optax.adam(args.lr))
    opt_c = optax.chain(optax.clip_by_global_norm(0.25), optax.adam(args.lr))
    sa, sc = opt_a.init(pa), opt_c.init(pc)

    def masked(logits, avail):
        return jnp.where(avail > 0, logits, -1e9)

    def step(carry, _):
        pa, pc, obs, state, key = carry
        key, k_act, k_env = jax.random.split(key, 3)
        ain, cin, avail = actor_in(obs), critic_in(obs), avail_of(state)
        logits = masked(actor.apply(pa, ain), avail)
        act = jax.random.categorical(k_act, logits)
        logp = jnp.take_along_axis(jax.nn.log_softmax(logits), act[..., None], -1)[..., 0]
        v = critic.apply(pc, cin)[..., 0]
        actions = {a: act[:, i] for i, a in enumerate(agents)}
        obs2, state2, rew, done, _ = jax.vmap(env.step)(jax.random.split(k_env, E), state, actions)
        r = jnp.stack([rew[a] for a in agents], axis=1)
        d = jnp.broadcast_to(done["__all__"][:, None], (E, n)).astype(jnp.float32)
        return (pa, pc, obs2, state2, key), (ain, cin, avail, act, logp, v, r, d)

    def gae(v, r, d, last_v, gamma=0.99, lam=0.95):
        def back(carry, x):
            adv, next_v = carry
            v_t, r_t, d_t = x
            delta = r_t + gamma * next_v * (1 - d_t) - v_t
            adv = delta + gamma * lam * (1 - d_t) * adv
            return (adv, v_t), adv

        _, adv = jax.lax.scan(back, (jnp.zeros_like(last_v), last_v), (v, r, d), reverse=True)
        return adv, adv + v

    def actor_loss(pa, ain, avail, act, logp_old, adv):
        logits = masked(actor.apply(pa, ain), avail)
        logp = jnp.take_along_axis(jax.nn.log_softmax(logits), act[..., None], -1)[..., 0]
        ratio = jnp.exp(logp - logp_old)
        return -jnp.mean(jnp.minimum(ratio * adv, jnp.clip(ratio, 0.8, 1.2) * adv))

    def critic_loss(pc, cin, ret):
        return 0.5 * jnp.mean((critic.apply(pc, cin)[..., 0] - ret) ** 2)

    @jax.jit
    def iteration(pa, pc, sa, sc, obs, state, key):
        (pa, pc, obs, state, key), (ain, cin, avail, act, logp, v, r, d) = jax.lax.scan(step, (pa, pc, obs, state, key), None, length=T)
        last_v = critic.apply(pc, critic_in(obs))[..., 0]
        adv, ret = gae(v, r, d, last_v)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        rows = T * E * n
        flat = lambda x: x.reshape((rows,) + x.shape[3:])
        data = tuple(flat(x) for x in (ain, cin, avail, act, logp, adv, ret))
        size = rows // args.minibatches

        def epoch(carry, k):
            pa, pc, sa, sc = carry
            perm = jax.random.permutation(k, rows)

            def mb(carry, idx):
                pa, pc, sa, sc = carry
                b = tuple(x[idx] for x in data)
                ga = jax.grad(actor_loss)(pa, b[0], b[2], b[3], b[4], b[5])
                gc = jax.grad(critic_loss)(pc, b[1], b[6])
                ua, sa = opt_a.update(ga, sa, pa)
                uc, sc = opt_c.update(gc, sc, pc)
                return (optax.apply_updates(pa, ua), optax.apply_updates(pc, uc), sa, sc), None

            (pa, pc, sa, sc), _ = jax.lax.scan(mb, (pa, pc, sa, sc), perm[: size * args.minibatches].reshape(args.minibatches, size))
            return (pa, pc, sa, sc), None

        key, k_perm = jax.random.split(key)
        (pa, pc, sa, sc), _ = jax.lax.scan(epoch, (pa, pc, sa, sc), jax.random.split(k_perm, args.epochs))
        return pa, pc, sa, sc, obs, state, key, r.sum() / E

    carry = (pa, pc, sa, sc, obs, state, key)
    for _ in range(args.warmup):
        out = iteration(*carry)
        jax.block_until_ready(out)
        carry = out[:7]
    times = []
    for _ in range(args.iters):
        t0 = time.perf_counter()
        out = iteration(*carry)
        jax.block_until_ready(out)
        times.append(time.perf_counter() - t0)
        carry = out[:7]
    med = statistics.median(times)
    print(f"jax-mappo {args.label} {args.scenario}: median {med:.3f} s/iter, {E * T / med:,.0f} env steps/s "
          f"({E} games × {T} steps, {args.iters} iterations after {args.warmup} warm-up; jax {jax.__version__})")


if __name__ == "__main__":
    main()
