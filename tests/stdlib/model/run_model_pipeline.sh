#!/usr/bin/env bash
# run_model_pipeline.sh ROPC SOURCE_DIR WORK_DIR DATA_DIR CACHE_DIR
# A generated std.model pipeline (pipeline/answers.rop, whose base_url names a dead port) built
# with ropc and run against fake_model_server.py:
#   --set answers.base_url=...: works; the server's two 503s are the report's http_retries
#   ROP_SET_ANSWERS_BASE_URL, server failing after two answers, one root at a time: the first
#     document is ok, the second fails (exit 3), the run is not aborted
#   no override (the dead port): the probe stops the run once, exit 1, one message
#   --help: the Arguments section with the effective base_url
set -euo pipefail
ropc=$1 src=$2 work=$3 data=$4 cache=$5
rm -rf "$work"
mkdir -p "$work/in"
cp "$src/tests/stdlib/model/pipeline/answers.rop" "$work/"
cp "$data/docs/letter.pdf" "$work/in/a_letter.pdf"
cp "$data/docs/report.pdf" "$work/in/b_report.pdf"
cd "$work"
export ROP_CACHE_DIR=$cache
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ROP_SET_ANSWERS_BASE_URL
"$ropc" build answers.rop -o ./answers -O1
fail() {
    echo "FAIL: $*"
    cat stderr.txt 2>/dev/null
    exit 1
}
server_pid=
start_server() {
    rm -f port.txt
    python3 "$src/tests/stdlib/model/fake_model_server.py" port.txt "$1" &
    server_pid=$!
    for _ in $(seq 100); do
        [ -f port.txt ] && break
        sleep 0.1
    done
    port=$(cat port.txt)
}
stop_server() {
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
}
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true' EXIT

# 1. --set points it at the fake server; two 503s are retried and counted.
start_server flaky
set +e
./answers --no-progress --set "answers.base_url=http://127.0.0.1:$port/v1" \
    --report r1.json >stdout.txt 2>stderr.txt
code=$?
set -e
stop_server
[ "$code" = 0 ] || fail "flaky run: exit $code, expected 0"
python3 - r1.json <<'PY' || fail "flaky report"
import json, sys
r = json.load(open(sys.argv[1]))
calls = {c["name"]: c for c in r["calls"]}
assert calls["answers"]["udf_counters"] == {"http_retries": 2}, calls["answers"]
assert "udf_counters" not in calls["docs"], calls["docs"]
assert [x["status"] for x in r["roots"]] == ["ok", "ok"], r["roots"]
PY
grep -q "answer" out/markdown/a_letter.md || fail "no answer in a_letter.md"

# 2. The environment, a server failing mid-run: the second document fails, not the run.
start_server fail_after
set +e
ROP_SET_ANSWERS_BASE_URL="http://127.0.0.1:$port/v1" ./answers --no-progress \
    --max-inflight-roots 1 --report r2.json >stdout.txt 2>stderr.txt
code=$?
set -e
stop_server
[ "$code" = 3 ] || fail "mid-run failure: exit $code, expected 3"
python3 - r2.json <<'PY' || fail "mid-run report"
import json, sys
r = json.load(open(sys.argv[1]))
roots = {x["name"].split("/")[-1]: x for x in r["roots"]}
assert roots["a_letter.pdf"]["status"] == "ok", roots
assert roots["b_report.pdf"]["status"] == "failed", roots
assert "HTTP 500" in roots["b_report.pdf"]["reason"], roots["b_report.pdf"]
PY
grep -q "answers_e2e: 1 failed of 2 roots" stderr.txt || fail "no failure summary"

# 3. Nothing listening (the .rop's port): one clear stop at setup.
set +e
./answers --no-progress >stdout.txt 2>stderr.txt
code=$?
set -e
[ "$code" = 1 ] || fail "server down: exit $code, expected 1"
n=$(grep -c "cannot reach http://127.0.0.1:9/v1/chat/completions: connect: Connection refused" \
    stderr.txt || true)
[ "$n" = 1 ] || fail "server down: the message $n times, expected once"

# 4. --help shows the effective arguments.
ROP_SET_ANSWERS_MODEL=other ./answers --help --set answers.base_url=http://h:1/v1 >help.txt
grep -q '^  answers.base_url  *"http://h:1/v1"  *(--set)$' help.txt || fail "help: base_url"
grep -q '^  answers.model  *"other"  *(ROP_SET_ANSWERS_MODEL)$' help.txt || fail "help: model"
grep -q '^  answers.api_key_env  *(hidden)$' help.txt || fail "help: api_key_env"
echo "ok"
