#!/usr/bin/env bash
# Prints every Secret a region's stack reads, as Kubernetes manifests, each value new and random; apply the output
# straight to that region's namespace, never commit it, never reuse it in the other region (docs/operations.md,
# "Deploying" and "Rotating every secret"):
#   DATABASE_URL=postgres://verity:…@postgres:5432/verity_us tools/scripts/region-secrets.sh us | kubectl apply -n verity-us -f -
# With names, only those Secrets (rotation of one):
#   tools/scripts/region-secrets.sh us capture | kubectl apply -n verity-us -f -
# Names: database (from $DATABASE_URL, the operator's database), internal, capture, webhook, erasure, smtp (from
# $SMTP_URL, optional), nats (every NATS identity, the route login and the system user) or nats-<identity>, and
# nats-tls (the NATS servers' certificate; leave it out where cert-manager issues it,
# deploy/examples/nats-certificates.yaml).
#   verity-database    DATABASE_URL          read by every service with a database and the migrate Job
#   verity-internal    INTERNAL_AUTH_SECRET  gateway, console, evidence, id-scan: signs internal HTTP (48 random bytes, hex)
#   verity-capture     CAPTURE_SECRET_KEY    sessions: client secrets of capture links (48 random bytes, hex)
#   verity-webhook     WEBHOOK_SECRET_KEY    webhook-delivery: encrypts signing secrets at rest (32 bytes, base64)
#   verity-erasure     ERASURE_SIGNING_KEY   applicants: signs erasure certificates (Ed25519 seed, 32 bytes, base64)
#   verity-smtp        SMTP_URL              sessions: the invitations' mail server (optional)
#   verity-nats-<id>   NATS_PASSWORD         each NATS identity (the services, console, operator) and the nats servers
#                                            (tools/scripts/nats-secrets.sh); route and system: the nats servers only
#   verity-nats-tls    tls.crt tls.key ca.crt  the NATS servers' certificate (clients and routes) and its CA, which every
#                                            service mounts (ca.crt only); a new CA, kept as verity-nats-ca (tls.crt,
#                                            tls.key: the form of a cert-manager CA Issuer's Secret) to sign the next
#                                            one, or with NATS_CA_CERT and NATS_CA_KEY (PEM files of that CA) a new
#                                            certificate of the same CA (docs/operations.md, "NATS certificates")
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
region="${1:?usage: region-secrets.sh us|eu [database|internal|capture|webhook|smtp|nats|nats-<identity>|nats-tls…]}"
[[ "$region" == us || "$region" == eu ]] || { echo "region must be us or eu" >&2; exit 2; }
shift
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(database internal capture webhook erasure smtp nats nats-tls)

secret() { # name key value
  cat <<YAML
---
apiVersion: v1
kind: Secret
metadata:
  name: $1
  labels: { app.kubernetes.io/part-of: verity, verity.dev/region: ${region} }
type: Opaque
stringData:
  $2: "$3"
YAML
}

tls_secret() { # name file:key… (PEM files, each under its key)
  local name="$1"; shift
  cat <<YAML
---
apiVersion: v1
kind: Secret
metadata:
  name: ${name}
  labels: { app.kubernetes.io/part-of: verity, verity.dev/region: ${region} }
type: kubernetes.io/tls
stringData:
YAML
  for pair in "$@"; do
    echo "  ${pair#*:}: |"
    sed 's/^/    /' "${pair%%:*}"
  done
}

# The NATS servers' certificate: the Service nats (clients), every pod's route name *.nats-headless, and localhost for
# `kubectl port-forward`; for servers (clients' and routes' connections) and clients (the routes a server opens).
nats_tls() (
  ns="verity-${region}"
  dir="$(mktemp -d)"
  trap 'rm -rf "$dir"' EXIT
  if [[ -n "${NATS_CA_CERT:-}" || -n "${NATS_CA_KEY:-}" ]]; then
    [[ -r "${NATS_CA_CERT:-}" && -r "${NATS_CA_KEY:-}" ]] || { echo "NATS_CA_CERT and NATS_CA_KEY must both be readable PEM files (the CA of verity-nats-ca)" >&2; exit 2; }
    cp "$NATS_CA_CERT" "$dir/ca.crt"
    cp "$NATS_CA_KEY" "$dir/ca.key"
  else
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
      -subj "/CN=verity ${region} NATS CA" -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign" -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
  fi
  names="DNS:nats,DNS:nats.${ns},DNS:nats.${ns}.svc,DNS:nats.${ns}.svc.cluster.local"
  names+=",DNS:*.nats-headless,DNS:*.nats-headless.${ns},DNS:*.nats-headless.${ns}.svc,DNS:*.nats-headless.${ns}.svc.cluster.local"
  names+=",DNS:localhost,IP:127.0.0.1"
  printf '%s\n' "subjectAltName=${names}" "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
    "extendedKeyUsage=serverAuth,clientAuth" > "$dir/ext.cnf"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=nats.${ns}" \
    -keyout "$dir/tls.key" -out "$dir/tls.csr" 2>/dev/null
  openssl x509 -req -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 365 \
    -extfile "$dir/ext.cnf" -out "$dir/tls.crt" 2>/dev/null
  tls_secret verity-nats-tls "$dir/tls.crt:tls.crt" "$dir/tls.key:tls.key" "$dir/ca.crt:ca.crt"
  [[ -n "${NATS_CA_CERT:-}" ]] || tls_secret verity-nats-ca "$dir/ca.crt:tls.crt" "$dir/ca.key:tls.key"
)

for n in "${names[@]}"; do
  case "$n" in
    database)
      [[ -n "${DATABASE_URL:-}" ]] || { echo "DATABASE_URL is not set: the region's database URL (postgres://user:password@host:5432/verity_${region})" >&2; exit 2; }
      secret verity-database DATABASE_URL "$DATABASE_URL" ;;
    internal) secret verity-internal INTERNAL_AUTH_SECRET "$(openssl rand -hex 48)" ;;
    capture) secret verity-capture CAPTURE_SECRET_KEY "$(openssl rand -hex 48)" ;;
    webhook) secret verity-webhook WEBHOOK_SECRET_KEY "$(openssl rand -base64 32)" ;;
    erasure) secret verity-erasure ERASURE_SIGNING_KEY "$(openssl rand -base64 32)" ;;
    smtp)
      if [[ -n "${SMTP_URL:-}" ]]; then secret verity-smtp SMTP_URL "$SMTP_URL"
      else echo "SMTP_URL is not set: no verity-smtp (invitations are only logged)" >&2; fi ;;
    nats) "$here/nats-secrets.sh" "$region" ;;
    nats-tls) nats_tls ;;
    nats-*) "$here/nats-secrets.sh" "$region" "${n#nats-}" ;;
    *) echo "unknown secret: $n" >&2; exit 2 ;;
  esac
done
