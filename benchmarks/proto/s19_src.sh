#!/bin/bash
# Session 19: ncu's per-instruction stall samples (SASS, CSV) of one launch at some shapes, to $OUT.
#   SKIP=4 LAUNCH=warptile@16+reduce bash benchmarks/proto/s19_src.sh SHAPE ...
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for s in "$@"; do
  $NCU --launch-skip ${SKIP:-2} --launch-count 1 --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
       python3 benchmarks/profile_one.py $LAUNCH $s > $OUT/src_$s.csv 2>$OUT/src_$s.err
  echo "$s rc=$? $(wc -l < $OUT/src_$s.csv) lines"
done
