#!/usr/bin/python3
"""Eager PyTorch baseline for tests/bench/trainer_bench.cpp: the same GPT (RMSNorm, fused qkv,
rotary, causal softmax attention, GELU MLP, tied unembedding, no biases), the same batch, the same
thread count, torch.optim.AdamW and clip_grad_norm_, timed over whole training steps. Prints one
line: `python_tok_s=<tokens per second>`. Run with Debian's /usr/bin/python3 (torch 1.13)."""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):  # (B,T,C)
        return x * x.pow(2).mean(-1, keepdim=True).add(self.eps).rsqrt() * self.gain


class Attention(nn.Module):
    def __init__(self, d, heads, seq_len, base=10000.0):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        inv = base ** (-torch.arange(0, self.hd // 2, dtype=torch.float64) * 2.0 / self.hd)
        ang = torch.outer(torch.arange(seq_len, dtype=torch.float64), inv)
        self.register_buffer("cos", torch.cat([ang.cos(), ang.cos()], -1).float())
        self.register_buffer("sin", torch.cat([-ang.sin(), ang.sin()], -1).float())
        self.register_buffer("mask", torch.full((seq_len, seq_len), float("-inf")).triu(1))

    def rotate(self, x):  # (B,H,T,D)
        half = self.hd // 2
        swapped = torch.cat([x[..., half:], x[..., :half]], -1)
        return torch.addcmul(x * self.cos, swapped, self.sin)

    def forward(self, x):  # (B,T,C)
        B, T, C = x.shape
        qkv = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        q, k, v = self.rotate(qkv[0]), self.rotate(qkv[1]), qkv[2]
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.hd)) + self.mask
        y = att.softmax(-1) @ v  # (B,H,T,D)
        return self.proj(y.transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, d, heads, seq_len):
        super().__init__()
        self.n1, self.attn = RMSNorm(d), Attention(d, heads, seq_len)
        self.n2 = RMSNorm(d)
        self.up, self.down = nn.Linear(d, 4 * d, bias=False), nn.Linear(4 * d, d, bias=False)

    def forward(self, x):
        x = x + self.attn(self.n1(x))
        return x + self.down(F.gelu(self.up(self.n2(x))))


class GPT(nn.Module):
    def __init__(self, vocab, d, layers, heads, seq_len):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d, heads, seq_len) for _ in range(layers)])
        self.norm = RMSNorm(d)

    def forward(self, idx, targets):
        x = self.emb(idx)
        for block in self.blocks:
            x = block(x)
        logits = F.linear(self.norm(x), self.emb.weight)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


def main():
    p = argparse.ArgumentParser()
    for name, default in [("d", 64), ("layers", 2), ("heads", 4), ("seq", 64), ("batch", 16),
                          ("vocab", 256), ("threads", 2), ("warmup", 3)]:
        p.add_argument("--" + name, type=int, default=default)
    p.add_argument("--seconds", type=float, default=10.0)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    model = GPT(a.vocab, a.d, a.layers, a.heads, a.seq)
    decay = [q for q in model.parameters() if q.dim() >= 2]
    no_decay = [q for q in model.parameters() if q.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=3e-3, betas=(0.9, 0.95), eps=1e-8)
    data = torch.randint(0, a.vocab, (64, a.batch, a.seq + 1), dtype=torch.int64)

    def step(i):
        batch = data[i % 64]
        loss = model(batch[:, :-1], batch[:, 1:])
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            raise SystemExit("diverged")
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()

    for i in range(a.warmup):
        step(i)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < a.seconds:
        step(steps)
        steps += 1
    elapsed = time.perf_counter() - start
    print(f"python_tok_s={steps * a.batch * a.seq / elapsed:.1f} steps={steps}", flush=True)


if __name__ == "__main__":
    main()
