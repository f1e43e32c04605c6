"""A character-level LSTM language model whose vocabulary head is nn.LinearCrossEntropyLoss
(torch 2.13) in its chunked form, so the [tokens, vocabulary] logits never stay in memory as a
whole: AdamW, gradient clipping, cosine schedule with warmup (SequentialLR), perplexity on held-out
text. Usage: lm_linear_cross_entropy.py [steps]."""
import math
import sys
import time

import torch
import torch.nn as nn

TEXT = ("the quick brown fox jumps over the lazy dog. a stitch in time saves nine. all that glitters is not "
        "gold. actions speak louder than words. better late than never. the early bird catches the worm. "
        "when in rome do as the romans do. fortune favours the bold. knowledge is power. time is money. ") * 20


class CharLM(nn.Module):
    def __init__(self, vocab, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim, num_layers=2, batch_first=True, dropout=0.1)
        opts = nn.LinearCrossEntropyOptions(batch_chunk_size=256)
        self.loss = nn.LinearCrossEntropyLoss(dim, vocab, bias=True, options=opts)

    def forward(self, x, y):
        h, _ = self.lstm(self.embed(x))
        return self.loss(h.reshape(-1, h.shape[-1]), y.reshape(-1))


def batches(data, seq, batch, gen):
    starts = torch.randint(0, len(data) - seq - 1, (batch,), generator=gen)
    x = torch.stack([data[s:s + seq] for s in starts.tolist()])
    y = torch.stack([data[s + 1:s + seq + 1] for s in starts.tolist()])
    return x, y


if __name__ == "__main__":
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    torch.manual_seed(0)
    chars = sorted(set(TEXT))
    data = torch.tensor([chars.index(c) for c in TEXT], dtype=torch.long)
    split = int(0.9 * len(data))
    train, held = data[:split], data[split:]
    model = CharLM(len(chars))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=10)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(1, steps - 10))
    sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cosine], milestones=[10])
    gen = torch.Generator().manual_seed(1)
    start = time.perf_counter()
    for step in range(steps):
        model.train()
        x, y = batches(train, 64, 16, gen)
        loss = model(x, y)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 50 == 0 or step == steps - 1:
            print(f"step {step} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        x, y = held[:-1].unsqueeze(0), held[1:].unsqueeze(0)
        print(f"held-out perplexity {math.exp(model(x, y).item()):.2f}")
    print(f"TIME {time.perf_counter() - start:.2f}")
