"""The Phase-Functioned Neural Network (Holden et al. 2017) in PyTorch.

Call order: net = PFNN(n_in, n_out, hidden); y = net(x_norm, phase) (training path, dropout in
train mode); net.forward_blend(x_norm, phase) is the runtime formulation (blend the 4
control-point weight sets with Catmull-Rom, then run one MLP) that the C runtime implements.
Both give the same function; forward() is faster for batches because it never materialises
per-sample weights. Parameters: W0 (4,H,in) b0 (4,H) W1 (4,H,H) b1 (4,H) W2 (4,out,H) b2 (4,out),
row-major "out x in" matrices. Inputs/outputs here are normalised; de/normalisation is the caller's.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CONTROL_POINTS = 4
KEEP_PROB = 0.7


def catmull_rom_coeffs(phase):
    """phase (B,) radians -> (B,4) weights of control points 0..3 (cyclic Catmull-Rom).

    p = 4 * (phase mod 2pi) / 2pi; k1 = floor(p) mod 4; w = p - floor(p);
    k0 = k1-1, k2 = k1+1, k3 = k1+2 (mod 4);
    c(k0) = -w/2 + w^2 - w^3/2,  c(k1) = 1 - 5w^2/2 + 3w^3/2,
    c(k2) = w/2 + 2w^2 - 3w^3/2, c(k3) = -w^2/2 + w^3/2.
    """
    p = torch.remainder(phase, 2 * math.pi) * (CONTROL_POINTS / (2 * math.pi))
    fl = torch.floor(p)
    w = p - fl
    k1 = torch.remainder(fl.long(), CONTROL_POINTS)
    w2 = w * w
    w3 = w2 * w
    cs = [-0.5 * w + w2 - 0.5 * w3, 1.0 - 2.5 * w2 + 1.5 * w3,
          0.5 * w + 2.0 * w2 - 1.5 * w3, -0.5 * w2 + 0.5 * w3]
    out = torch.zeros(phase.shape[0], CONTROL_POINTS, dtype=phase.dtype, device=phase.device)
    for j, c in enumerate(cs):
        k = torch.remainder(k1 + (j - 1), CONTROL_POINTS)
        out.scatter_add_(1, k[:, None], c[:, None])
    return out


class PFNN(nn.Module):
    def __init__(self, n_in, n_out, hidden=512, keep_prob=KEEP_PROB):
        super().__init__()
        self.n_in, self.n_out, self.hidden = n_in, n_out, hidden
        sizes = [(hidden, n_in), (hidden, hidden), (n_out, hidden)]
        self.W = nn.ParameterList()
        self.b = nn.ParameterList()
        for o, i in sizes:
            # Same initialisation as the reference implementation: uniform +-sqrt(6/(in+out)).
            bound = math.sqrt(6.0 / (i + o))
            self.W.append(nn.Parameter(torch.empty(CONTROL_POINTS, o, i).uniform_(-bound, bound)))
            self.b.append(nn.Parameter(torch.zeros(CONTROL_POINTS, o)))
        self.drop = 1.0 - keep_prob

    def forward(self, x, phase):
        c = catmull_rom_coeffs(phase)                      # (B,4)
        h = x
        for layer in range(3):
            h = F.dropout(h, self.drop, self.training)
            z = torch.einsum("bi,koi->kbo", h, self.W[layer]) + self.b[layer][:, None, :]
            h = torch.einsum("bk,kbo->bo", c, z)
            if layer < 2:
                h = F.elu(h)
        return h

    @torch.no_grad()
    def forward_blend(self, x, phase):
        """Runtime formulation, one sample at a time: W = sum_k c_k W_k, then the MLP."""
        c = catmull_rom_coeffs(phase)
        out = torch.empty(x.shape[0], self.n_out, dtype=x.dtype)
        for s in range(x.shape[0]):
            h = x[s]
            for layer in range(3):
                W = torch.einsum("k,koi->oi", c[s], self.W[layer])
                b = torch.einsum("k,ko->o", c[s], self.b[layer])
                h = W @ h + b
                if layer < 2:
                    h = F.elu(h)
            out[s] = h
        return out

    def l1_penalty(self):
        return sum(w.abs().mean() for w in self.W)
