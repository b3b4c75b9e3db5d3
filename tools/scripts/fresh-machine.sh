#!/usr/bin/env bash
# The README's quick start as a new user of a fresh machine runs it: a fresh clone of this checkout's HEAD, in an
# empty home, `npm ci`, `npm start`, the README's first call (an organization and a test key with the admin CLI,
# then GET /v1/me), Ctrl-C — once as a new unprivileged user and once as root. Run it as root (it makes the user).
# It needs Node 24 on the PATH, as the README says, and nothing else: `npm start` brings its own Postgres, Redis
# and NATS (and, as root, installs redis-server and nats-server when they are missing).
#
#   bash tools/scripts/fresh-machine.sh            both
#   bash tools/scripts/fresh-machine.sh user|root  one of them
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
which=${1:-both}
[ "$(id -u)" = 0 ] || { echo "fresh-machine: run as root (it creates a user)" >&2; exit 2; }

work=$(mktemp -d /tmp/verity-fresh-XXXXXX)
chmod 755 "$work"
user="vfresh$$"
cleanup() {
  pkill -u "$user" 2>/dev/null || true
  id "$user" >/dev/null 2>&1 && userdel --remove "$user" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# A new login has the machine's network settings (a proxy, a company's certificate authority) and nothing of ours:
# these pass through, every other variable is dropped.
machine_env=(PATH="$PATH" LANG=C.UTF-8)
for v in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy; do
  [ -n "${!v:-}" ] && machine_env+=("$v=${!v}")
done

# the commit under test as a bundle anyone may clone (the checkout itself may sit in a private home)
git -C "$repo" bundle create -q "$work/verity.bundle" HEAD
chmod 644 "$work/verity.bundle"

# the README's steps, in a shell of the person running them; $1 is where they clone
cat > "$work/quick-start.sh" <<'EOF'
set -euo pipefail
cd "$1"
git -c advice.detachedHead=false clone -q "$2" verity
cd verity
npm ci > ../npm-ci.log 2>&1 || { tail -20 ../npm-ci.log; exit 1; }
# its own process group, so that Ctrl-C can be played as a terminal sends it: to the whole group
setsid npm start > ../start.log 2>&1 &
start=$!
# npm start builds first; on a busy machine that alone can take minutes
for _ in $(seq 1 900); do
  grep -q 'verity: ready' ../start.log && break
  kill -0 "$start" 2>/dev/null || { tail -30 ../start.log; exit 1; }
  sleep 1
done
grep -q 'verity: ready' ../start.log || { tail -30 ../start.log; exit 1; }
ORG=$(npm run -s admin -- org create --region us --name Acme | node -pe 'JSON.parse(require("fs").readFileSync(0)).id')
KEY=$(npm run -s admin -- key create --region us --org "$ORG" --mode test --type sk \
        --scopes applicants:read,applicants:write | node -pe 'JSON.parse(require("fs").readFileSync(0)).key')
me=$(curl -s http://127.0.0.1:8080/v1/me -H "Authorization: Bearer $KEY")
echo "$me" | node -e 'const m = JSON.parse(require("fs").readFileSync(0)).data; if (m.object !== "api_key" || m.region !== "us" || m.mode !== "test") process.exit(1)' \
  || { echo "GET /v1/me answered: $me"; exit 1; }
app=$(curl -s http://127.0.0.1:8080/v1/applicants -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"family_name":"Lovelace","given_names":["Ada"]}')
echo "$app" | grep -q '"object":"applicant"' || { echo "POST /v1/applicants answered: $app"; exit 1; }
kill -INT -- "-$start"
wait "$start" || true
grep -q 'verity: stopped' ../start.log || { echo "npm start did not stop cleanly"; tail -20 ../start.log; exit 1; }
echo "quick start as $(id -un): first call answered ($me)"
EOF
chmod 644 "$work/quick-start.sh"

# FRESH_NPM_CACHE (CI sets it to its own npm cache): a copy of it becomes the new home's npm cache, so `npm ci`
# takes from it what it would otherwise download again; what it installs is the same (package-lock.json).
seed_npm_cache() {
  [ -n "${FRESH_NPM_CACHE:-}" ] && [ -d "$FRESH_NPM_CACHE/_cacache" ] || return 0
  mkdir -p "$1/.npm" && cp -r "$FRESH_NPM_CACHE/_cacache" "$1/.npm/"
}

as_user() {
  useradd --create-home --home-dir "$work/home" --shell /bin/bash "$user"
  seed_npm_cache "$work/home"
  chown -R "$user:" "$work/home"
  local t=$(date +%s)
  runuser -u "$user" -- env -i HOME="$work/home" "${machine_env[@]}" \
    bash "$work/quick-start.sh" "$work/home" "$work/verity.bundle"
  echo "fresh-machine: unprivileged user in $(( $(date +%s) - t )) s"
}

as_root() {
  mkdir -p "$work/root-home" "$work/root"
  seed_npm_cache "$work/root-home"
  local t=$(date +%s)
  env -i HOME="$work/root-home" "${machine_env[@]}" \
    bash "$work/quick-start.sh" "$work/root" "$work/verity.bundle"
  echo "fresh-machine: root in $(( $(date +%s) - t )) s"
}

case "$which" in
  user) as_user ;;
  root) as_root ;;
  both) as_user; as_root ;;
  *) echo "usage: fresh-machine.sh [user|root|both]" >&2; exit 2 ;;
esac
