#!/bin/bash
# printfarm, schemas + 9 examples (3 held out), compact format, the same data as pf-sig-ex-s0: the format comparison
set -e
cd /work/wt3
PY=/work/wt3/.venv/bin/python
R=/work/runs/pf-cmp-ex2-s0
mkdir -p $R/eval
cp -r /work/runs/pf-sig-ex-s0/data $R/data
echo "\$ train"; $PY -m train.dft --model embedded --data $R/data --run-dir $R/train --loss sft --fine-tune full --no-pack --share-prefix --prompt-format compact --max-length 2304 --batch-size 8 --grad-accum 1 --steps 60 --learning-rate 0.0001 --warmup-steps 6 --val-every 60 --val-batches 4 --save-every 15 --validity-n 0 --threshold-n 0 --prose-bound 0 --seed 0 --no-prefix-grad
echo "\$ export"; $PY -m export.gguf --model $R/train/model --out $R/model-q8_0.gguf || true
T=eval/specialist/printfarm
echo "\$ eval test"; $PY -m eval.specialist --model $R/model-q8_0.gguf --tools $T/tools.json --label specialist --requests $T/requests.jsonl --out $R/eval/specialist-test.json
echo "\$ eval heldout"; $PY -m eval.specialist --model $R/model-q8_0.gguf --tools $T/tools.json --label specialist --requests $R/data/heldout_requests.jsonl --examples $R/data/heldout_examples.jsonl --out $R/eval/specialist-heldout.json
echo "\$ eval constrained"; $PY -m eval.specialist --model $R/model-q8_0.gguf --tools $T/tools.json --label specialist-constrained --constrain --requests $T/requests.jsonl --out $R/eval/specialist-constrained-test.json
echo done
