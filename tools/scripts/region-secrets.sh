#!/usr/bin/env bash
# Prints every Secret a region's stack reads, as Kubernetes manifests, each value new and random; apply the output
# straight to that region's namespace, never commit it, never reuse it in the other region (docs/operations.md,
# "Deploying" and "Rotating every secret"):
#   DATABASE_URL=postgres://verity:…@postgres:5432/verity_us tools/scripts/region-secrets.sh us | kubectl apply -n verity-us -f -
# With names, only those Secrets (rotation of one):
#   tools/scripts/region-secrets.sh us capture | kubectl apply -n verity-us -f -
# Names: database (from $DATABASE_URL, the operator's database, and $DATABASE_POOLER_URL, the same through the
# optional PgBouncer), redis (from $REDIS_URL, default redis://redis:6379), internal, capture, webhook, console-totp, erasure,
# principal, smtp (from $SMTP_URL, optional), nats (every NATS identity, the route login and the system user) or
# nats-<identity>, nats-tls (the NATS servers' certificate; leave it out where cert-manager issues it,
# deploy/examples/nats-certificates.yaml), and, only with the in-cluster Postgres of deploy/components/in-cluster-data,
# postgres (its superuser, database and password, from $DATABASE_URL); with deploy/components/object-store,
# object-store (the evidence service's bucket, endpoint, credentials and the region's object key, from $OBJECT_STORE_*),
# and with deploy/components/minio, minio (the in-cluster MinIO's root user; name it with object-store in one run).
#   verity-database    DIRECT_DATABASE_URL   the migrate Job: the server itself as the schemas' owner ($DATABASE_URL)
#   verity-database-<service>  DATABASE_URL PASSWORD  each service with a database: its own role verity_<schema> with a new
#                                            password, at $DATABASE_POOLER_URL's host when set (PgBouncer), else $DATABASE_URL's;
#                                            the migrate Job gives the role that password and its rights (docs/operations.md)
#   verity-pgbouncer-auth  userlist.txt      PgBouncer (deploy/components/pgbouncer): the services' roles and passwords
#   verity-redis       REDIS_URL             gateway, console: rate limits, console sessions ($REDIS_URL; may carry a password)
#   verity-postgres    POSTGRES_USER POSTGRES_PASSWORD POSTGRES_DB  the in-cluster Postgres (deploy/components/in-cluster-data)
#   verity-internal    INTERNAL_AUTH_SECRET  gateway, console, evidence, id-scan: signs internal HTTP (48 random bytes, hex)
#   verity-capture     CAPTURE_SECRET_KEY    sessions: client secrets of capture links (48 random bytes, hex)
#   verity-webhook     WEBHOOK_SECRET_KEY    webhook-delivery: encrypts signing secrets at rest (32 bytes, base64)
#   verity-console-totp  CONSOLE_TOTP_KEY    accounts: encrypts the console's TOTP secrets at rest (32 bytes, base64)
#   verity-erasure     ERASURE_SIGNING_KEY   applicants: signs erasure certificates (Ed25519 seed, 32 bytes, base64)
#   verity-principal-gateway  PRINCIPAL_SIGNING_KEY  gateway: signs the principals it attaches (<key id>:<Ed25519 seed>)
#   verity-principal-console  PRINCIPAL_SIGNING_KEY  console: the same, for the people signed in
#   verity-principal-verify   PRINCIPAL_VERIFY_KEYS  every service: both edges' public keys (gateway/<id>:<x>,console/<id>:<x>),
#                                            and those in $PRINCIPAL_VERIFY_KEYS_KEEP (a rotation: docs/operations.md)
#   verity-smtp        SMTP_URL              sessions: the invitations' mail server (optional)
#   verity-object-store  EVIDENCE_S3_* EVIDENCE_OBJECT_KEY  evidence: the region's bucket and the key sealing its objects
#                                            (keep the key: objects sealed with a lost key cannot be read)
#   verity-minio       MINIO_ROOT_USER MINIO_ROOT_PASSWORD  the in-cluster MinIO (deploy/components/minio)
#   verity-nats-<id>   NATS_PASSWORD         each NATS identity (the services, console, operator) and the nats servers
#                                            (tools/scripts/nats-secrets.sh); route and system: the nats servers only
#   verity-nats-tls    tls.crt tls.key ca.crt  the NATS servers' certificate (clients and routes) and its CA, which every
#                                            service mounts (ca.crt only); a new CA, kept as verity-nats-ca (tls.crt,
#                                            tls.key: the form of a cert-manager CA Issuer's Secret) to sign the next
#                                            one, or with NATS_CA_CERT and NATS_CA_KEY (PEM files of that CA) a new
#                                            certificate of the same CA (docs/operations.md, "NATS certificates")
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
region="${1:?usage: region-secrets.sh us|eu [database|redis|internal|capture|webhook|console-totp|erasure|principal|smtp|nats|nats-<identity>|nats-tls|postgres|object-store|minio…]}"
[[ "$region" == us || "$region" == eu ]] || { echo "region must be us or eu" >&2; exit 2; }
shift
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(database redis internal capture webhook console-totp erasure principal smtp nats nats-tls)

secret_head() { # name type
  cat <<YAML
---
apiVersion: v1
kind: Secret
metadata:
  name: $1
  labels: { app.kubernetes.io/part-of: verity, verity.dev/region: ${region} }
type: $2
stringData:
YAML
}

secret() { # name key value [key value …]
  secret_head "$1" Opaque
  shift
  local v
  while [[ $# -gt 0 ]]; do
    # a YAML double-quoted string: backslashes, quotes and line ends escaped
    v="${2//\\/\\\\}"
    v="${v//\"/\\\"}"
    v="${v//$'\n'/\\n}"
    printf '  %s: "%s"\n' "$1" "$v"
    shift 2
  done
}

# The region's database URL, required by `database` and `postgres`.
database_url() {
  [[ -n "${DATABASE_URL:-}" ]] || { echo "DATABASE_URL is not set: the region's database URL (postgres://user:password@host:5432/verity_${region})" >&2; exit 2; }
  printf %s "$DATABASE_URL"
}

# The services with a database, each connecting as its own role (docs/operations.md, "Database roles").
DATABASE_SERVICES=(accounts applicants screening sessions webhook-delivery evidence id-scan)
URL_RE='^(postgres(ql)?://)([^:@/]+):([^@/]+)@([^/]+)/([^?]+)(\?.*)?$'

# The region's database: the owner's URL for the migrate Job, and per service its role's URL and password (the host
# PgBouncer's when $DATABASE_POOLER_URL is set), with PgBouncer's list of those roles.
database_secrets() {
  local direct host pw svc userlist=""
  direct="$(database_url)"
  [[ "$direct" =~ $URL_RE ]] || { echo "DATABASE_URL must be postgres://user:password@host:port/database" >&2; exit 2; }
  local scheme="${BASH_REMATCH[1]}" db="${BASH_REMATCH[6]}" query="${BASH_REMATCH[7]}"
  host="${BASH_REMATCH[5]}"
  if [[ -n "${DATABASE_POOLER_URL:-}" ]]; then
    [[ "$DATABASE_POOLER_URL" =~ $URL_RE ]] || { echo "DATABASE_POOLER_URL must be postgres://…@host:port/database" >&2; exit 2; }
    host="${BASH_REMATCH[5]}"
  fi
  secret verity-database DIRECT_DATABASE_URL "$direct"
  for svc in "${DATABASE_SERVICES[@]}"; do
    pw="$(openssl rand -hex 24)"
    secret "verity-database-$svc" DATABASE_URL "${scheme}verity_${svc//-/_}:${pw}@${host}/${db}${query}" PASSWORD "$pw"
    userlist+="\"verity_${svc//-/_}\" \"${pw}\""$'\n'
  done
  secret verity-pgbouncer-auth userlist.txt "$userlist"
}

# The in-cluster Postgres's first user, password and database: those of $DATABASE_URL, so the owner's URL works.
postgres_secret() {
  local url
  url="$(database_url)"
  [[ "$url" =~ $URL_RE ]] || { echo "DATABASE_URL must be postgres://user:password@host:port/database for the in-cluster Postgres" >&2; exit 2; }
  secret verity-postgres POSTGRES_USER "${BASH_REMATCH[3]}" POSTGRES_PASSWORD "${BASH_REMATCH[4]}" POSTGRES_DB "${BASH_REMATCH[6]}"
}

tls_secret() { # name file:key… (PEM files, each under its key)
  secret_head "$1" kubernetes.io/tls
  shift
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

# A new Ed25519 key pair: prints "<seed, base64> <public key, base64url>" (the seed is the last 32 bytes of the PKCS #8
# key, the public key the last 32 of its SubjectPublicKeyInfo).
ed25519() {
  local der seed x
  der="$(openssl genpkey -algorithm ed25519 -outform DER | base64 | tr -d '\n')"
  seed="$(printf %s "$der" | base64 -d | tail -c 32 | base64 | tr -d '\n')"
  x="$(printf %s "$der" | base64 -d | openssl pkey -inform DER -pubout -outform DER | tail -c 32 | base64 | tr -d '\n=' | tr '+/' '-_')"
  echo "$seed $x"
}

# The edges' principal keys (docs/security.md, "The bus's trust boundary"): a new key pair each for the gateway and
# the console under a key id of today's date, and the services' list of the public keys (with $PRINCIPAL_VERIFY_KEYS_KEEP).
principal_secrets() {
  local kid verify edge pair
  kid="$(date -u +%Y%m%d)-$(openssl rand -hex 3)"
  verify=""
  for edge in gateway console; do
    read -r -a pair <<<"$(ed25519)"
    secret "verity-principal-$edge" PRINCIPAL_SIGNING_KEY "$kid:${pair[0]}"
    verify="${verify:+$verify,}$edge/$kid:${pair[1]}"
  done
  secret verity-principal-verify PRINCIPAL_VERIFY_KEYS "$verify${PRINCIPAL_VERIFY_KEYS_KEEP:+,$PRINCIPAL_VERIFY_KEYS_KEEP}"
}

# The in-cluster MinIO's root password (deploy/components/minio), the same for its Secret and the evidence service's
# credentials when both are made in one run.
minio_pw="$(openssl rand -hex 24)"

# The evidence service's object store (deploy/components/object-store): the bucket ($OBJECT_STORE_BUCKET, default
# verity-evidence-<region>), the endpoint and signing region when not AWS S3's ($OBJECT_STORE_ENDPOINT,
# $OBJECT_STORE_REGION), static credentials when not the pod's identity ($OBJECT_STORE_ACCESS_KEY_ID and
# $OBJECT_STORE_SECRET_ACCESS_KEY), and a new key sealing the region's objects. With `minio` in the same run: the
# in-cluster MinIO at http://minio:9000 with its root credentials.
object_store_secret() {
  local endpoint="${OBJECT_STORE_ENDPOINT:-}" id="${OBJECT_STORE_ACCESS_KEY_ID:-}" key="${OBJECT_STORE_SECRET_ACCESS_KEY:-}" args
  if [[ " ${names[*]} " == *" minio "* ]]; then
    endpoint="${endpoint:-http://minio:9000}"
    id="${id:-verity}"
    key="${key:-$minio_pw}"
  fi
  if [[ -n "$id" && -z "$key" || -z "$id" && -n "$key" ]]; then
    echo "OBJECT_STORE_ACCESS_KEY_ID and OBJECT_STORE_SECRET_ACCESS_KEY: set both or neither" >&2
    exit 2
  fi
  args=(EVIDENCE_S3_BUCKET "${OBJECT_STORE_BUCKET:-verity-evidence-${region}}")
  [[ -z "$endpoint" ]] || args+=(EVIDENCE_S3_ENDPOINT "$endpoint")
  [[ -z "${OBJECT_STORE_REGION:-}" ]] || args+=(EVIDENCE_S3_REGION "$OBJECT_STORE_REGION")
  [[ -z "$id" ]] || args+=(EVIDENCE_S3_ACCESS_KEY_ID "$id" EVIDENCE_S3_SECRET_ACCESS_KEY "$key")
  secret verity-object-store "${args[@]}" EVIDENCE_OBJECT_KEY "$(openssl rand -base64 32)"
}

for n in "${names[@]}"; do
  case "$n" in
    database) database_secrets ;;
    redis) secret verity-redis REDIS_URL "${REDIS_URL:-redis://redis:6379}" ;;
    postgres) postgres_secret ;;
    internal) secret verity-internal INTERNAL_AUTH_SECRET "$(openssl rand -hex 48)" ;;
    capture) secret verity-capture CAPTURE_SECRET_KEY "$(openssl rand -hex 48)" ;;
    webhook) secret verity-webhook WEBHOOK_SECRET_KEY "$(openssl rand -base64 32)" ;;
    console-totp) secret verity-console-totp CONSOLE_TOTP_KEY "$(openssl rand -base64 32)" ;;
    erasure) secret verity-erasure ERASURE_SIGNING_KEY "$(openssl rand -base64 32)" ;;
    principal) principal_secrets ;;
    smtp)
      if [[ -n "${SMTP_URL:-}" ]]; then secret verity-smtp SMTP_URL "$SMTP_URL"
      else echo "SMTP_URL is not set: no verity-smtp (invitations are only logged)" >&2; fi ;;
    nats) "$here/nats-secrets.sh" "$region" ;;
    nats-tls) nats_tls ;;
    object-store) object_store_secret ;;
    minio) secret verity-minio MINIO_ROOT_USER verity MINIO_ROOT_PASSWORD "$minio_pw" ;;
    nats-*) "$here/nats-secrets.sh" "$region" "${n#nats-}" ;;
    *) echo "unknown secret: $n" >&2; exit 2 ;;
  esac
done
