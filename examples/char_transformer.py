"""A character-level transformer language model trained on the Declaration of
Independence (public domain, examples/data/declaration.txt), then sampled.
Run: python examples/char_transformer.py [--steps N] [--autocast bfloat16]"""
from __future__ import annotations

import argparse
from pathlib import Path

import nabla as nb
import nabla.nn as nn
import nabla.nn.functional as F

TEXT = (Path(__file__).resolve().parent / "data" / "declaration.txt").read_text()


class CharTransformer(nn.Module):
    """Token + position embeddings -> causal TransformerEncoder (pre-norm) -> logits over the vocabulary."""

    def __init__(self, vocab: int, d_model: int = 64, nhead: int = 4, layers: int = 2, context: int = 64) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(context, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=4 * d_model, dropout=0.1,
                                           batch_first=True, norm_first=True, activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model), enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab)
        self.register_buffer("mask", nb.full((context, context), float("-inf")).triu(1), persistent=False)

    def forward(self, idx: nb.Tensor) -> nb.Tensor:
        T = idx.shape[1]
        x = self.tok(idx) + self.pos(nb.arange(T))
        return self.head(self.encoder(x, mask=self.mask[:T, :T], is_causal=True))


def main(steps: int = 300, context: int = 64, autocast: str | None = None, sample: bool = True) -> float:
    """Trains for `steps` and returns the last loss; with autocast ("bfloat16" or "float16") the
    forward pass and the loss run under nb.autocast("cpu") (mixed precision)."""
    nb.manual_seed(0)
    chars = sorted(set(TEXT))
    stoi = {c: i for i, c in enumerate(chars)}
    data = nb.tensor([stoi[c] for c in TEXT])
    model = CharTransformer(len(chars), context=context)
    opt = nb.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = nb.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    print(f"{len(TEXT)} characters, vocabulary {len(chars)}, "
          f"{sum(p.numel() for p in model.parameters()):,} parameters")
    for step in range(steps):
        starts = nb.randint(0, data.shape[0] - context - 1, (32, 1))
        idx = starts + nb.arange(context + 1)
        batch = data[idx]
        with nb.autocast("cpu", dtype=getattr(nb, autocast or "bfloat16"), enabled=autocast is not None):
            logits = model(batch[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, len(chars)), batch[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % 50 == 0 or step == steps - 1:
            print(f"step {step:4d}: loss {loss.item():.3f}")
    if not sample:
        return loss.item()
    model.eval()
    out = [stoi[c] for c in "We hold these truths"]
    with nb.no_grad():
        for _ in range(200):
            ctx = nb.tensor([out[-context:]])
            probs = F.softmax(model(ctx)[0, -1] / 0.8, dim=-1)
            out.append(nb.multinomial(probs, 1).item())
    print("sample:", "".join(chars[i] for i in out))
    return loss.item()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--autocast", choices=["bfloat16", "float16"], default=None)
    args = parser.parse_args()
    main(args.steps, autocast=args.autocast)
