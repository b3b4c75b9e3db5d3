#!/usr/bin/env bash
# (tools/scripts/region-secrets.sh prints these and the region's other secrets.)
# Prints a region's NATS credentials as Kubernetes Secrets, one per identity (verity-nats-<identity>, key
# NATS_PASSWORD), each a new random password: letters and digits starting with a letter, as the server's
# configuration reads it from its environment (docs/security.md, "NATS"). Run it once per region and apply the
# output straight to that region's namespace; never commit it, never reuse it in the other region.
#   tools/scripts/nats-secrets.sh us | kubectl apply -n verity-us -f -
# Besides the identities, the servers' own users: "route" (the route port's login, read only by the nats servers)
# and "system" (the system account's user, the operator's for `nats server …`).
# Rotating one: run with that name only, apply, then restart nats and that identity's Deployment.
#   tools/scripts/nats-secrets.sh us sessions | kubectl apply -n verity-us -f -
set -euo pipefail
region="${1:?usage: nats-secrets.sh us|eu [identity…]}"
[[ "$region" == us || "$region" == eu ]] || { echo "region must be us or eu" >&2; exit 2; }
shift
identities=("$@")
if [[ ${#identities[@]} -eq 0 ]]; then
  identities=(gateway accounts applicants screening sessions webhook-delivery evidence id-scan console operator)
  servers=(route system)
  identities+=("${servers[@]}")
fi
for id in "${identities[@]}"; do
  cat <<YAML
---
apiVersion: v1
kind: Secret
metadata:
  name: verity-nats-${id}
  labels: { app.kubernetes.io/part-of: verity, verity.dev/region: ${region} }
type: Opaque
stringData:
  NATS_PASSWORD: p$(openssl rand -hex 24)
YAML
done
