"""A small residual CNN trained on synthetic 32x32 images in channels-last memory format, as
PyTorch's performance guide recommends: model.to(memory_format=torch.channels_last), inputs
made channels-last, SGD with momentum and OneCycleLR, a checkpoint saved and reloaded with
torch.save / torch.load, held-out accuracy. Usage: cnn_channels_last.py [epochs]."""
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_data(n, rng):
    """Four classes: a bright square in one of the four quadrants, on noise."""
    x = rng.normal(0, 0.5, (n, 3, 32, 32)).astype(np.float32)
    y = rng.integers(0, 4, n)
    for i, c in enumerate(y):
        r, q = divmod(int(c), 2)
        x[i, :, 16 * r + 4:16 * r + 12, 16 * q + 4:16 * q + 12] += 2.0
    return torch.from_numpy(x), torch.from_numpy(y)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.skip = nn.Sequential()
        if stride != 1 or cin != cout:
            self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.skip(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layers = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2))
        self.head = nn.Linear(64, 4)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


if __name__ == "__main__":
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train = make_data(512, rng)
    x_test, y_test = make_data(256, rng)
    model = Net().to(memory_format=torch.channels_last)
    assert model.stem[0].weight.is_contiguous(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
    batch = 64
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(x_train) // batch)
    start = time.perf_counter()
    for epoch in range(epochs):
        model.train()
        perm, total = torch.randperm(len(x_train)), 0.0
        for i in range(0, len(x_train), batch):
            idx = perm[i:i + batch]
            xb = x_train[idx].contiguous(memory_format=torch.channels_last)
            loss = F.cross_entropy(model(xb), y_train[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch} loss {total / len(x_train):.4f}")
    with tempfile.TemporaryDirectory() as d:
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epochs}, f"{d}/ckpt.pt")
        restored = Net().to(memory_format=torch.channels_last)
        ckpt = torch.load(f"{d}/ckpt.pt")
        restored.load_state_dict(ckpt["model"])
    restored.eval()
    with torch.no_grad():
        pred = restored(x_test.to(memory_format=torch.channels_last)).argmax(1)
    print(f"held-out accuracy {(pred == y_test).float().mean().item():.3f}")
    print(f"TIME {time.perf_counter() - start:.2f}")
