#!/usr/bin/env python3
"""PyTorch peer of PaperLab's tiny-LM benchmarks (configuration R), for side-by-side ratios.

Measuring peer only (never in PaperLab's product path). Same model as toolkit/lm ConfigR: pre-LN
decoder, learned positions, 2 layers, d=64, 4 heads, FF 256, exact GELU, vocab 20, context 24,
separate q/k/v projections, untied unembedding; Adam lr 3e-3; batch 64. Attention is
F.scaled_dot_product_attention where torch has it (2.x), else written out (1.13); the same function.
Runs on Debian's torch 1.13 (/usr/bin/python3) and on the pinned current torch in bench/.venv
(bench/peers.sh need_torch2); bench/run.sh runs both.

  train_step         one Adam step (forward, backward, update) on a batch of 64 × 24 tokens
  sample             64 prompts of 7 tokens, 8 new tokens with a KV cache, as PaperLab's Sample: one
                     prefill of the prompts, then one decode step per new token (7), each appending the
                     new token's keys and values to per-layer caches preallocated for 7 + 8 positions;
                     multinomial sampling at temperature 1
  sample_recompute   the same 8 new tokens by full recompute of the growing sequence each step (no KV
                     cache): 8 forward passes over 7, 8, …, 14 tokens
  rl_loop            8 sample calls, then 1 train step (PaperLab's BenchmarkRLLoop)
  rl_loop_recompute  the same with sample_recompute

  torch_r.py [THREADS [REPS]]

Prints one line per benchmark: peer (torch<major.minor>), name, median ms, min ms, repetitions; first
checks that the cached decode gives the full recompute's logits (to 1e-4; fails otherwise).
"""
import math, statistics, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
torch.manual_seed(0)
V, T, L, D, H, FF, B = 20, 24, 2, 64, 4, 256, 64
SDPA = getattr(F, "scaled_dot_product_attention", None)  # what a torch 2.x user calls; 1.13 lacks it


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.q, self.k, self.v, self.o = (nn.Linear(D, D) for _ in range(4))
        self.fin, self.fout = nn.Linear(D, FF), nn.Linear(FF, D)

    def forward(self, x, mask, cache=None, start=0):
        """cache: this layer's (keys, values) [B, H, Tmax, D/H]; x's keys and values are written at
        positions start…start+t−1 and x attends to positions 0…start+t−1."""
        b, t, _ = x.shape
        h = self.ln1(x)
        q, k, v = (p(h).view(b, t, H, D // H).transpose(1, 2) for p in (self.q, self.k, self.v))
        if cache is not None:
            ck, cv = cache
            ck[:, :, start:start + t] = k
            cv[:, :, start:start + t] = v
            k, v = ck[:, :, :start + t], cv[:, :, :start + t]
        m = mask[start:start + t, :start + t]
        if SDPA is not None:  # torch ≥ 2.0: its fused attention (the same function of q, k, v and m)
            a = SDPA(q, k, v, attn_mask=m)
        else:
            a = ((q @ k.transpose(-1, -2)) / math.sqrt(D // H) + m).softmax(-1) @ v
        a = a.transpose(1, 2).reshape(b, t, D)
        x = x + self.o(a)
        return x + self.fout(F.gelu(self.fin(self.ln2(x))))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(V, D), nn.Embedding(T, D)
        self.blocks = nn.ModuleList(Block() for _ in range(L))
        self.ln, self.unembed = nn.LayerNorm(D), nn.Linear(D, V, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((T, T), -1e9), 1))

    def forward(self, ids, caches=None, start=0):
        t = ids.shape[1]
        x = self.tok(ids) + self.pos(torch.arange(start, start + t))
        for i, blk in enumerate(self.blocks):
            x = blk(x, self.mask, None if caches is None else caches[i], start)
        return self.unembed(self.ln(x))


def timeit(fn, reps, warm=3):
    for _ in range(warm):
        fn()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(out), min(out), reps


model = LM()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
ids = torch.randint(3, V, (B, T))
tgt = torch.randint(3, V, (B, T))
lmask = (torch.rand(B, T) < 0.3).float()


def train_step():
    opt.zero_grad(set_to_none=True)
    logits = model(ids)
    lp = F.log_softmax(logits, -1).gather(-1, tgt.unsqueeze(-1)).squeeze(-1)
    loss = -(lp * lmask).sum() / lmask.sum()
    loss.backward()
    opt.step()


P, NEW = 7, 8
prompts = torch.randint(3, V, (B, P))


@torch.no_grad()
def sample_recompute():
    seq = prompts
    for _ in range(NEW):
        logits = model(seq)[:, -1, :]
        nxt = torch.multinomial(F.softmax(logits, -1), 1)
        seq = torch.cat([seq, nxt], 1)
    return seq


def new_caches():
    return [(torch.empty(B, H, P + NEW, D // H), torch.empty(B, H, P + NEW, D // H)) for _ in range(L)]


@torch.no_grad()
def sample():
    caches = new_caches()
    logits = model(prompts, caches)[:, -1, :]  # prefill
    out = [prompts]
    for i in range(NEW):
        nxt = torch.multinomial(F.softmax(logits, -1), 1)
        out.append(nxt)
        if i + 1 < NEW:  # decode step: the new token only, against the cache
            logits = model(nxt, caches, P + i)[:, -1, :]
    return torch.cat(out, 1)


@torch.no_grad()
def check_cache():
    """The cached prefill and decode steps give the full recompute's last-position logits."""
    seq = sample()
    caches = new_caches()
    worst = (model(seq[:, :P], caches)[:, -1] - model(seq[:, :P])[:, -1]).abs().max().item()
    for j in range(P, P + NEW - 1):
        got = model(seq[:, j:j + 1], caches, j)[:, -1]
        worst = max(worst, (got - model(seq[:, :j + 1])[:, -1]).abs().max().item())
    if worst > 1e-4:
        sys.exit(f"torch_r.py: KV-cached logits differ from full recompute by {worst:g}")


check_cache()
peer = "torch" + ".".join(torch.__version__.split(".")[:2])
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
for name, fn in (("train_step", train_step), ("sample", sample), ("sample_recompute", sample_recompute)):
    med, mn, n = timeit(fn, reps)
    print(f"{peer} {name} {med:.3f} {mn:.3f} {n}", flush=True)


def rl_loop(sampler):
    for _ in range(8):
        sampler()
    train_step()


for name, sampler in (("rl_loop", sample), ("rl_loop_recompute", sample_recompute)):
    med, mn, n = timeit(lambda: rl_loop(sampler), max(5, reps // 6), warm=1)
    print(f"{peer} {name} {med:.3f} {mn:.3f} {n}", flush=True)
