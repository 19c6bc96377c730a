#!/bin/sh
# One command for the offline PFNN pipeline (prepare -> train -> export -> report).
# Example: tools/train/run.sh --data ../shared/mocap/cmu --out build/train --threads 1 --epochs 78 --epoch-samples 124000
#          tools/train/run.sh --smoke --out build/train_smoke        (2 clips, 1 epoch, tiny net)
# Ship:    add --dest assets/network. Needs Debian python3-numpy python3-torch python3-matplotlib.
set -e
here=$(dirname "$0")
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 "$here/pipeline.py" "$@"
