#!/usr/bin/env bash
# A release of one region in one command (docs/operations.md, "Upgrading"): the migrate Job of the release runs to
# completion first, then the region's objects are applied and every Deployment's rollout is waited for. A migration
# that fails stops the release before any new code runs (the Job's log is printed); the old pods keep serving.
#
#   tools/scripts/release.sh us                       deploy/overlays/us and deploy/overlays/us/migrate
#   tools/scripts/release.sh us path/to/your/overlay  your overlay (with its components) and the shipped migrate Job
#
# It runs kubectl with the current context; KUBECTL names another binary (or a wrapper), MIGRATE_TIMEOUT_SECONDS
# (default 600) and ROLLOUT_TIMEOUT (default 10m) bound the waits.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
region="${1:?usage: release.sh us|eu [overlay directory]}"
[[ "$region" == us || "$region" == eu ]] || { echo "region must be us or eu" >&2; exit 2; }
overlay="${2:-$repo/deploy/overlays/$region}"
migrate="$repo/deploy/overlays/$region/migrate"
ns="verity-$region"
kubectl="${KUBECTL:-kubectl}"

echo "release $region: migrations"
# a Job's template cannot change: the finished one of the last release goes first
"$kubectl" -n "$ns" delete job verity-migrate --ignore-not-found
"$kubectl" apply -k "$migrate"
# until the Job completes or fails (a failed Job never completes: waiting for completion alone would sit out the timeout)
deadline=$(( $(date +%s) + ${MIGRATE_TIMEOUT_SECONDS:-600} ))
state=""
while [[ $(date +%s) -lt $deadline ]]; do
  state="$("$kubectl" -n "$ns" get job verity-migrate -o 'jsonpath={range .status.conditions[?(@.status=="True")]}{.type} {end}')"
  [[ "$state" == *Complete* || "$state" == *Failed* ]] && break
  sleep "${POLL_SECONDS:-2}"
done
if [[ "$state" != *Complete* ]]; then
  echo "release $region: the migrations did not complete (${state:-timed out}); nothing else was applied. Their log:" >&2
  "$kubectl" -n "$ns" logs job/verity-migrate --tail=50 >&2 || true
  exit 1
fi

echo "release $region: the region's objects"
"$kubectl" apply -k "$overlay"
for d in $("$kubectl" -n "$ns" get deployments -o name); do
  "$kubectl" -n "$ns" rollout status "$d" --timeout="${ROLLOUT_TIMEOUT:-10m}"
done
echo "release $region: done"
