#!/usr/bin/env bash
# Prints every Secret a region's stack reads, as Kubernetes manifests, each value new and random; apply the output
# straight to that region's namespace, never commit it, never reuse it in the other region (docs/operations.md,
# "Deploying" and "Rotating every secret"):
#   DATABASE_URL=postgres://verity:…@postgres:5432/verity_us tools/scripts/region-secrets.sh us | kubectl apply -n verity-us -f -
# With names, only those Secrets (rotation of one):
#   tools/scripts/region-secrets.sh us capture | kubectl apply -n verity-us -f -
# Names: database (from $DATABASE_URL, the operator's database), internal, capture, webhook, erasure, smtp (from
# $SMTP_URL, optional), nats (every NATS identity) or nats-<identity>.
#   verity-database    DATABASE_URL          read by every service with a database and the migrate Job
#   verity-internal    INTERNAL_AUTH_SECRET  gateway, console, evidence, id-scan: signs internal HTTP (48 random bytes, hex)
#   verity-capture     CAPTURE_SECRET_KEY    sessions: client secrets of capture links (48 random bytes, hex)
#   verity-webhook     WEBHOOK_SECRET_KEY    webhook-delivery: encrypts signing secrets at rest (32 bytes, base64)
#   verity-erasure     ERASURE_SIGNING_KEY   applicants: signs erasure certificates (Ed25519 seed, 32 bytes, base64)
#   verity-smtp        SMTP_URL              sessions: the invitations' mail server (optional)
#   verity-nats-<id>   NATS_PASSWORD         each NATS identity (the services, console, operator) and the nats servers
#                                            (tools/scripts/nats-secrets.sh)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
region="${1:?usage: region-secrets.sh us|eu [database|internal|capture|webhook|smtp|nats|nats-<identity>…]}"
[[ "$region" == us || "$region" == eu ]] || { echo "region must be us or eu" >&2; exit 2; }
shift
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(database internal capture webhook erasure smtp nats)

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
    nats-*) "$here/nats-secrets.sh" "$region" "${n#nats-}" ;;
    *) echo "unknown secret: $n" >&2; exit 2 ;;
  esac
done
