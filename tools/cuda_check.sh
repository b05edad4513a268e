#!/usr/bin/env bash
# The checks that need a real NVIDIA GPU, in one short run: the CUDA tests on the device (not the
# simulator) and bench_cuda's rows. Logs and results go to $OUT (default /tmp/cuda_check).
#   bash tools/cuda_check.sh [pytest args...]      e.g.  bash tools/cuda_check.sh tests/cuda/test_cuda_core.py
# TESTS_TIMEOUT / BENCH_TIMEOUT (seconds) bound the two parts; BENCH=0 skips the bench.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/cuda_check}"; mkdir -p "$OUT"
PY="$(command -v python3 || command -v python)"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 JTORCH_TEST_CUDA=1
export JTORCH_CACHE_DIR="${JTORCH_CACHE_DIR:-/tmp/jtorch-cache}"
unset NUMBA_ENABLE_CUDASIM
# numba-cuda 0.30.4 still registers np.row_stack, which NumPy 2.5 removed: give it the alias back
SHIM="$(mktemp -d)"; printf 'import numpy\nif "row_stack" not in dir(numpy): numpy.row_stack = numpy.vstack\n' \
    > "$SHIM/sitecustomize.py"; export PYTHONPATH="$PYTHONPATH:$SHIM"
"$PY" - <<'PY' 2>&1 | tee "$OUT/env.txt"
import numba, numpy, sys
print("python", sys.version.split()[0], "numba", numba.__version__, "numpy", numpy.__version__)
try:
    import importlib.metadata as m; print("numba-cuda", m.version("numba-cuda"))
except Exception as e: print("numba-cuda:", e)
try:
    import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())
except Exception as e: print("torch:", e)
import jtorch; print("jtorch cuda available:", jtorch.cuda.is_available(), jtorch.cuda.get_device_name(0))
PY
args=("$@"); [ ${#args[@]} -eq 0 ] && args=(tests/cuda)
XDIST=(); "$PY" -c "import xdist" 2>/dev/null && XDIST=(-n "${WORKERS:-12}" --max-worker-restart=200)
# SIGINT first: pytest then still prints the failures it has seen
# launches synchronous: a bad memory access is reported by the test whose kernel made it
JTORCH_TEST_CRASH_LOG="$OUT/crashes.txt" CUDA_LAUNCH_BLOCKING=1 timeout -s INT -k 30 "${TESTS_TIMEOUT:-330}" "$PY" -m pytest -q -p no:cacheprovider "${XDIST[@]}" -rfE --tb=short \
    --junitxml="$OUT/cuda-tests.xml" "${args[@]}" 2>&1 | tee "$OUT/cuda-tests.log" | tail -120
echo "tests exit: ${PIPESTATUS[0]}"
if [ "${BENCH:-1}" != 0 ]; then
  timeout "${BENCH_TIMEOUT:-150}" "$PY" bench/run_all.py --only cuda --out "$OUT/bench" --no-plot 2>&1 \
      | tee "$OUT/bench.log" | tail -60
  echo "bench exit: ${PIPESTATUS[0]}"
  timeout 60 "$PY" tools/cuda_launch_probe.py 2>&1 | tee "$OUT/launch-probe.txt"
fi
