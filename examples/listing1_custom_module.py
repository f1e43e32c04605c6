"""Listing 1 of the PyTorch paper (Paszke et al., 2019), on nabla: a custom layer
is a Module whose __init__ makes Parameters and whose forward is plain tensor
code; models compose such layers. Run: python examples/listing1_custom_module.py"""
from __future__ import annotations

import nabla as torch
import nabla.nn as nn


class LinearLayer(nn.Module):
    def __init__(self, in_sz, out_sz):
        super().__init__()
        t1 = torch.randn(in_sz, out_sz) / in_sz ** 0.5
        self.w = nn.Parameter(t1)
        t2 = torch.randn(out_sz) * 0.01
        self.b = nn.Parameter(t2)

    def forward(self, activations):
        t = torch.mm(activations, self.w)
        return t + self.b


class FullBasicModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 128, 3)
        self.fc = LinearLayer(128, 10)

    def forward(self, x):
        t1 = self.conv(x)                     # [N, 128, 6, 6] for 8x8 inputs
        t2 = nn.functional.relu(t1).mean((2, 3))  # global average pool: [N, 128]
        t3 = self.fc(t2)
        return nn.functional.log_softmax(t3, dim=1)


def main(steps: int = 150) -> float:
    from demo import load_digits
    torch.manual_seed(0)
    images, labels = load_digits()
    model = FullBasicModel()
    print(model)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(steps):
        idx = torch.randint(0, labels.shape[0], (64,))
        loss = nn.functional.nll_loss(model(images[idx]), labels[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            print(f"step {step:3d}: loss {loss.item():.4f}")
    return loss.item()


if __name__ == "__main__":
    main()
