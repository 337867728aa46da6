#!/usr/bin/env python3
"""PyTorch peer of PaperLab's tiny-LM benchmarks (configuration R), for side-by-side ratios.

Measuring peer only (never in PaperLab's product path). Same model as toolkit/lm ConfigR: pre-LN
decoder, learned positions, 2 layers, d=64, 4 heads, FF 256, exact GELU, vocab 20, context 24,
separate q/k/v projections, untied unembedding; Adam lr 3e-3; batch 64.

  train_step  one Adam step (forward, backward, update) on a batch of 64 × 24 tokens
  sample      64 prompts of 7 tokens, 8 new tokens, full recompute of the growing sequence each step
              (no KV cache), multinomial sampling at temperature 1

Prints one line per benchmark: name, median ms, min ms, repetitions (PyTorch threads = 1).
"""
import math, statistics, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
torch.manual_seed(0)
V, T, L, D, H, FF, B = 20, 24, 2, 64, 4, 256, 64


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.q, self.k, self.v, self.o = (nn.Linear(D, D) for _ in range(4))
        self.fin, self.fout = nn.Linear(D, FF), nn.Linear(FF, D)

    def forward(self, x, mask):
        b, t, _ = x.shape
        h = self.ln1(x)
        q, k, v = (p(h).view(b, t, H, D // H).transpose(1, 2) for p in (self.q, self.k, self.v))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D // H) + mask[:t, :t]
        a = (s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, D)
        x = x + self.o(a)
        return x + self.fout(F.gelu(self.fin(self.ln2(x))))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(V, D), nn.Embedding(T, D)
        self.blocks = nn.ModuleList(Block() for _ in range(L))
        self.ln, self.unembed = nn.LayerNorm(D), nn.Linear(D, V, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((T, T), -1e9), 1))

    def forward(self, ids):
        t = ids.shape[1]
        x = self.tok(ids) + self.pos(torch.arange(t))
        for blk in self.blocks:
            x = blk(x, self.mask)
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


prompts = torch.randint(3, V, (B, 7))


@torch.no_grad()
def sample():
    seq = prompts
    for _ in range(8):
        logits = model(seq)[:, -1, :]
        nxt = torch.multinomial(F.softmax(logits, -1), 1)
        seq = torch.cat([seq, nxt], 1)
    return seq


reps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
for name, fn in (("train_step", train_step), ("sample", sample)):
    med, mn, n = timeit(fn, reps)
    print(f"torch {name} {med:.3f} {mn:.3f} {n}", flush=True)


def rl_loop():
    for _ in range(8):
        sample()
    train_step()


med, mn, n = timeit(rl_loop, max(5, reps // 6), warm=1)
print(f"torch rl_loop {med:.3f} {mn:.3f} {n}", flush=True)
