"""PyTorch's examples/time_sequence_prediction (sine waves, two LSTMCells, LBFGS), shortened
to a few steps; written for torch. bench/dropin_vs_torch.py runs it with torch and, with only
the import lines changed, with nabla."""
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        return torch.cat(outputs, dim=1)


if __name__ == "__main__":
    np.random.seed(2)
    T, L, N = 20, 300, 40
    x = np.empty((N, L), "int64")
    x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    data = np.sin(x / 1.0 / T).astype("float64")
    torch.manual_seed(0)
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    seq = Sequence()
    seq.double()
    init = {k: torch.from_numpy(np.random.default_rng(0).uniform(-0.14, 0.14, tuple(v.shape)))
            for k, v in seq.state_dict().items()}
    seq.load_state_dict(init)  # the same starting weights for both libraries
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
    start = time.perf_counter()
    for i in range(4):
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            loss.backward()
            return loss
        loss = optimizer.step(closure)
        print(f"STEP {i} loss {loss.item():.6f}")
        with torch.no_grad():
            future = 100
            pred = seq(test_input, future=future)
            test_loss = criterion(pred[:, :-future], test_target)
            print(f"test loss: {test_loss.item():.6f}")
    print(f"TIME {time.perf_counter() - start:.2f}")
