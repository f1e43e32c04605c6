"""Listing 2 of the PyTorch paper (Paszke et al., 2019), on nabla: a GAN is two
models, two Adam optimizers and a training step that is ordinary Python, with
.detach() keeping the discriminator's update out of the generator's graph.
Here the "real" data are points on a ring of radius 2. Run: python examples/listing2_gan.py"""
from __future__ import annotations

import math

import nabla as torch
import nabla.nn as nn
import nabla.optim as optim


def create_discriminator():
    return nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))


def create_generator():
    return nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))


def get_noise(n=128):
    return torch.randn(n, 8)


def real_batch(n=128):
    angle = torch.rand(n) * (2 * math.pi)
    return torch.stack([angle.cos(), angle.sin()], 1) * 2.0 + torch.randn(n, 2) * 0.05


def main(steps: int = 600) -> float:
    torch.manual_seed(0)
    discriminator = create_discriminator()
    generator = create_generator()
    optimD = optim.Adam(discriminator.parameters(), lr=1e-3, betas=(0.5, 0.999))
    optimG = optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.999))
    loss = nn.BCEWithLogitsLoss()
    real_label, fake_label = torch.ones(128, 1), torch.zeros(128, 1)

    def step(real_sample):
        # (1) Update Discriminator
        optimD.zero_grad()
        errD_real = loss(discriminator(real_sample), real_label)
        errD_real.backward()
        fake = generator(get_noise())
        errD_fake = loss(discriminator(fake.detach()), fake_label)
        errD_fake.backward()
        optimD.step()
        # (2) Update Generator
        optimG.zero_grad()
        errG = loss(discriminator(fake), real_label)
        errG.backward()
        optimG.step()
        return errD_real.item() + errD_fake.item(), errG.item()

    for i in range(steps):
        d, g = step(real_batch())
        if i % 100 == 0 or i == steps - 1:
            with torch.no_grad():
                radius = generator(get_noise(512)).norm(dim=1)
            print(f"step {i:4d}: loss D {d:.3f}, loss G {g:.3f}, generated radius {radius.mean().item():.2f} "
                  f"+- {radius.std().item():.2f} (real: 2.00)")
    return radius.mean().item()


if __name__ == "__main__":
    main()
