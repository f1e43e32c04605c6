"""A policy-gradient (REINFORCE) loop in the style of PyTorch's examples/reinforcement_learning,
on a small built-in bandit-like chain environment (no gym): Categorical sampling, log_prob,
an episode's log-probs stacked (> 96 of them), returns normalised with finfo(eps)."""
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class Chain:
    """State: position 0..9 (one-hot); action 1 moves right (+1 reward at the end), 0 moves left."""

    def reset(self):
        self.pos = 0
        return self._obs()

    def _obs(self):
        o = np.zeros(10, dtype=np.float32)
        o[self.pos] = 1
        return o

    def step(self, a):
        self.pos = min(9, self.pos + 1) if a == 1 else max(0, self.pos - 1)
        done = self.pos == 9
        return self._obs(), (1.0 if done else -0.01), done


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(10, 64)
        self.dropout = nn.Dropout(p=0.1)
        self.affine2 = nn.Linear(64, 2)

    def forward(self, x):
        x = self.dropout(F.relu(self.affine1(x)))
        return F.softmax(self.affine2(x), dim=1)


if __name__ == "__main__":
    torch.manual_seed(543)
    np.random.seed(543)
    policy = Policy()
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    eps = torch.finfo(torch.float32).eps
    env = Chain()
    start = time.perf_counter()
    lengths = []
    for episode in range(60):
        state, log_probs, rewards = env.reset(), [], []
        for t in range(200):
            probs = policy(torch.from_numpy(state).float().unsqueeze(0))
            m = Categorical(probs)
            action = m.sample()
            log_probs.append(m.log_prob(action))
            state, reward, done = env.step(action.item())
            rewards.append(reward)
            if done:
                break
        R, returns = 0, []
        for r in rewards[::-1]:
            R = r + 0.99 * R
            returns.insert(0, R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        loss = (-torch.cat(log_probs) * returns).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        lengths.append(t + 1)
    print(f"mean episode length, first 10: {np.mean(lengths[:10]):.1f}, last 10: {np.mean(lengths[-10:]):.1f}")
    print(f"TIME {time.perf_counter() - start:.2f}")
