"""A multilayer perceptron on the 8x8 digits, flattened to 64 features, trained
with SGD + momentum and a step schedule. Run: python examples/mlp.py"""
from __future__ import annotations

import nabla as nb
import nabla.nn as nn
import nabla.nn.functional as F
from demo import load_digits


def main(epochs: int = 20) -> float:
    nb.manual_seed(0)
    images, labels = load_digits()
    x = images.flatten(1)
    perm = nb.randperm(labels.shape[0])
    test, train = perm[:360], perm[360:]
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
    opt = nb.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    sched = nb.optim.lr_scheduler.StepLR(opt, step_size=8, gamma=0.3)
    for epoch in range(epochs):
        model.train()
        order = train[nb.randperm(train.shape[0])]
        for i in range(0, order.shape[0], 64):
            idx = order[i:i + 64]
            loss = F.cross_entropy(model(x[idx]), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        model.eval()
        with nb.no_grad():
            acc = (model(x[test]).argmax(1) == labels[test]).float().mean().item()
        print(f"epoch {epoch + 1:2d}: loss {loss.item():.4f}, held-out accuracy {acc:.2%}, lr {sched.get_last_lr()[0]:.4f}")
    return acc


if __name__ == "__main__":
    main()
