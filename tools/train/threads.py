"""Thread counts for the training pipeline: every one honoured, so --threads N means N.

torch has its own intra-op pool (torch.set_num_threads), and numpy and torch call
OpenMP/OpenBLAS/MKL, which size their own pools from environment variables read once, when the
library loads: with only torch.set_num_threads(1), `--threads 1` used 191 % CPU (numpy's
OpenBLAS fits the terrain with all cores). limit_env(n) must therefore run before numpy or torch
is imported (pipeline.py and train.py do it first thing); limit_torch(torch, n) sets torch's
pool. (torch's inter-op pool serves only forked graphs, which training does not use; setting it
after any parallel work aborts the process, so it is left alone.)
Nothing here imports numpy or torch.
"""
import os

ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
            "VECLIB_MAXIMUM_THREADS")


def limit_env(n):
    """Sets every numerical library's thread variable to N (before they load)."""
    for v in ENV_VARS:
        os.environ[v] = str(int(n))


def limit_env_from_argv(argv):
    """limit_env() from a --threads N (or --threads=N) in ARGV; 1 when absent, the default."""
    n = 1
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            n = argv[i + 1]
        elif a.startswith("--threads="):
            n = a.split("=", 1)[1]
    try:
        n = max(1, int(n))
    except ValueError:
        return  # argparse reports the bad value
    limit_env(n)


def limit_torch(torch, n):
    """torch's intra-op pool to N threads."""
    torch.set_num_threads(int(n))
