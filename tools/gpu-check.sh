#!/usr/bin/env bash
# gpu-check.sh: Strider on a real GPU in one go, as a user would check it.
#
#   tools/gpu-check.sh OUT_DIR [--quick]
#
# With strider and strider-chargen on PATH (the GPU machine: `.gpu/run
# tools/gpu-check.sh $OUT/gpu`, see ../shared/gpu/README.md) or in
# build/release (a checkout). Writes into OUT_DIR:
#   summary.txt          the tables of docs/GPU.md and docs/CROWD.md
#   sweep.txt            every deformation switch (game and viewer) against the
#                        CPU path: exit codes and differing pixels
#   *.csv / *.json       the benchmarks' own outputs; bench_blendshapes*.png
#                        (GPU Gems 3 Fig. 3-6 from the GPU's timer queries)
# and exits 1 when a run fails, a benchmark's methods disagree or a GPU
# picture differs from the CPU's.
# Times: GPU work by GL timer queries (the benchmarks' gpu_query_us, the
# report's gpu_*_ms), CPU work by the frame's stage times (the report's
# medians), never by glFinish alone. About 3 minutes on an H200 machine
# (16 cores); --quick: fewer repeats and frames, no Dawn-scale mesh (a
# smoke test of the script itself, for llvmpipe).
# Does NOT: build anything, or judge speed: summary.txt gives numbers next to
# their goals, docs and people judge them.
set -uo pipefail
out=${1:?usage: tools/gpu-check.sh OUT_DIR [--quick]}
quick=0
[ "${2:-}" = "--quick" ] && quick=1
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
export STRIDER_GL_VALIDATE=1
S=$(command -v strider || echo "$root/build/release/strider")
CG=$(command -v strider-chargen || echo "$root/build/release/tools/chargen/strider-chargen")
# A python3 with numpy and matplotlib (Debian's; on the GPU machine the one on PATH).
PY=
for p in /usr/bin/python3 python3; do
    if "$p" -c "import numpy, matplotlib" 2>/dev/null; then PY=$p; break; fi
done
[ -x "$S" ] || { echo "gpu-check: no strider binary (PATH or build/release)" >&2; exit 1; }
cd "$root" || exit 1
failed=0
log() { echo "== $*"; }
# Pins a timed run to one core where taskset exists (away from the mesh build).
pin() { if command -v taskset >/dev/null && [ "$(nproc)" -ge 4 ]; then taskset -c 2 "$@"; else "$@"; fi; }
run() { # NAME ARGS...: a strider run whose exit code is kept in $out/rc_NAME
    local name=$1; shift
    pin "$S" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    echo "$rc" >"$out/rc_$name"
    [ "$rc" -eq 0 ] || { echo "gpu-check: $name exited $rc: $(tail -1 "$out/$name.log")" >&2; failed=1; }
    return 0
}

if [ $quick -eq 1 ]; then reps=3; frames=30; big=""; else reps=30; frames=300; big=1; fi
{
    echo "# gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    command -v nvidia-smi >/dev/null &&
        nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current --format=csv,noheader
    grep -m1 "model name" /proc/cpuinfo
    echo "cores $(nproc)"
} >"$out/machine.txt"
cat "$out/machine.txt"

# The Dawn-scale mesh (~50 s on one core), made while the head is measured.
dawn=$out/dawn.chr
if [ -n "$big" ]; then
    log "making the Dawn-scale mesh in the background"
    (taskset -c 0 "$CG" --out "$dawn" --density 6 --extra-bones 80 --shapes 256 >"$out/chargen.log" 2>&1 ||
        "$CG" --out "$dawn" --density 6 --extra-bones 80 --shapes 256 >"$out/chargen.log" 2>&1) &
    cg_pid=$!
fi

log "blend shapes, shipped head: every method"
run bs_head bench blendshapes --counts 0,1,2,4,8,16,32,50,61 --repeats $reps \
    --csv "$out/bench_blendshapes_head.csv" --json "$out/bench_blendshapes_head.json"
log "skinning, shipped character: every GPU path"
run skin_head bench skinning --paths gpu --repeats $reps --csv "$out/bench_skinning_head.csv"

log "game, hills walk, 1920x1080: CPU and GPU deformation"
for v in "cpu" "gpu --skin-per-pass" "gpu"; do
    n=game_$(echo "$v" | tr -dc 'a-z')
    # shellcheck disable=SC2086
    run "$n" --level hills --script assets/scripts/walk_turn.script --hidden --no-vsync --size 1920x1080 \
        --frames $frames --skin $v --report "$out/$n.json"
done

log "bench render, hills, 1920x1080"
run render bench render --size 1920x1080 --frames $((frames / 5 + 10)) --csv "$out/bench_render.csv"

log "sweep: every deformation switch against the CPU path"
sweep=$out/sweep
mkdir -p "$sweep"
V=(--view character --hidden --size 640x360 --frames 12 --pose ../shared/mocap/cmu/extra_60fps/46_01.bvh
    --pose-frame 40 --expression happy,surprised)
[ -f ../shared/mocap/cmu/extra_60fps/46_01.bvh ] || V=(--view character --hidden --size 640x360 --frames 12
    --expression happy,surprised)
# name | reference (CPU) flags | flags
cases=(
    "v_gpu||--skin gpu"
    "v_gpu_dense||--skin gpu --dense"
    "v_pass||--skin gpu --skin-per-pass"
    "v_pass_dense||--skin gpu --skin-per-pass --dense"
    "v_pass_cpu_morph||--skin gpu --skin-per-pass --cpu-morph"
    "v_pass_dqs|--skin-method dqs|--skin gpu --skin-per-pass --skin-method dqs"
    "v_once||--skin gpu --skin-once"
    "v_once_dense||--skin gpu --skin-once --dense"
    "v_cpu_morph||--skin gpu --cpu-morph"
    "v_once_cpu_morph||--skin gpu --skin-once --cpu-morph"
    "v_points|--skin-method points|--skin gpu --skin-method points"
    "v_dqs|--skin-method dqs|--skin gpu --skin-method dqs"
    "v_dqs_once|--skin-method dqs|--skin gpu --skin-method dqs --skin-once"
    "v_infl2|--influences 2|--skin gpu --influences 2"
    "v_hybrid1||--hybrid 1"
    "v_hybrid4||--hybrid 4"
    "v_menu|-|--skin gpu --skin-once --menu"
    "v_clip|--play-clip|--skin gpu --play-clip"
    "v_clip_once|--play-clip|--skin gpu --skin-once --play-clip"
    "v_curve|--curve talk|--skin gpu --curve talk"
    "v_curve_once|--curve talk|--skin gpu --skin-once --curve talk"
    "g_gpu||--skin gpu"
    "g_pass||--skin gpu --skin-per-pass"
    "g_once||--skin gpu --skin-once"
    "g_cpu_morph||--skin gpu --cpu-morph"
    "g_dqs|--skin-method dqs|--skin gpu --skin-method dqs"
    "g_hybrid2|-|--hybrid 2"
)
G=(--level course --script assets/scripts/walk_turn.script --hidden --size 640x360 --frames 90)
: >"$sweep/pairs.txt"
for c in "${cases[@]}"; do
    IFS='|' read -r name ref flags <<<"$c"
    if [ "${name:0:2}" = "g_" ]; then base=("${G[@]}"); else base=("${V[@]}"); fi
    # "-": no reference (the hybrid shows the pose of N-1 frames ago).
    refname=ref_${name:0:1}_$(echo "$ref" | tr -dc 'a-z0-9')
    [ "$ref" = "-" ] && refname=-
    if [ "$refname" != "-" ] && [ ! -f "$sweep/$refname.png" ]; then
        # shellcheck disable=SC2086
        run "$refname" "${base[@]}" $ref --screenshot "$sweep/$refname.png"
    fi
    # shellcheck disable=SC2086
    run "$name" "${base[@]}" $flags --screenshot "$sweep/$name.png" --report "$sweep/$name.json"
    echo "$name $refname" >>"$sweep/pairs.txt"
done
log "sweep: the bake"
run bake "${V[@]}" --skin gpu --bake "$sweep/baked.chr"
run bake_show --view character --hidden --size 640x360 --frames 12 --character "$sweep/baked.chr" \
    --screenshot "$sweep/bake_show.png"
run bake_ref --view character --hidden --size 640x360 --frames 12 --expression happy,surprised \
    --screenshot "$sweep/bake_ref.png"
echo "bake_show bake_ref" >>"$sweep/pairs.txt"

if [ -n "$big" ]; then
    wait "$cg_pid"
    if [ -f "$dawn" ]; then
        log "blend shapes, Dawn-scale head"
        run bs_dawn bench blendshapes --mesh "$dawn" --counts 0,10,50,128,256 --repeats 10 \
            --methods cpu-sparse,gpu-ssbo-dense,gpu-ssbo-sparse,gpu-compute-dense,gpu-compute-sparse,gpu-tf-multipass \
            --csv "$out/bench_blendshapes_dawn.csv"
        log "skinning, Dawn-scale mesh"
        run skin_dawn bench skinning --mesh "$dawn" --paths gpu-lbs-matrix,gpu-compute,gpu-skin-once,gpu-per-pass \
            --repeats $reps --csv "$out/bench_skinning_dawn.csv"
        log "viewer, Dawn-scale mesh, 50 active shapes, 1920x1080"
        for v in "cpu" "gpu --skin-per-pass" "gpu" "gpu --cpu-morph"; do
            n=dawn_$(echo "$v" | tr -dc 'a-z')
            # shellcheck disable=SC2086
            run "$n" --view character --character "$dawn" --hidden --no-vsync --size 1920x1080 --frames $frames \
                --active-shapes 50 --skin $v --report "$out/$n.json"
        done
    else
        echo "gpu-check: the Dawn-scale mesh was not made: $(tail -1 "$out/chargen.log")" >&2
        failed=1
    fi
    rm -f "$dawn"
fi

log "crowd, hills, 1920x1080: bench crowd, and the game with 100 and 1000 characters"
# Not pinned: the crowd runs on every core, as in play.
ccounts=1,10,100,1000 cframes=120
[ $quick -eq 1 ] && ccounts=1,10 cframes=8
"$S" bench crowd --counts $ccounts --frames $cframes --size 1920x1080 \
    --csv "$out/bench_crowd.csv" --json "$out/bench_crowd.json" >"$out/crowd.log" 2>&1
echo $? >"$out/rc_crowd"
for n in 100 1000; do
    [ $quick -eq 1 ] && [ $n -gt 100 ] && continue
    "$S" --level hills --crowd $n --hidden --no-vsync --size 1920x1080 --frames $frames \
        --report "$out/game_crowd$n.json" >"$out/game_crowd$n.log" 2>&1
    echo $? >"$out/rc_game_crowd$n"
done
log "CPU skinning, one pinned core: AVX-512 against AVX2"
run skin_cpu bench skinning --paths cpu-avx2,cpu-avx512 --threads 1 --repeats $reps \
    --csv "$out/bench_skinning_cpu.csv"

log "summary"
if [ -n "$PY" ]; then
    "$PY" "$root/tools/gpu_check_summary.py" "$out" || failed=1
else
    echo "gpu-check: no python3 for the summary" >&2
    failed=1
fi
exit $failed
