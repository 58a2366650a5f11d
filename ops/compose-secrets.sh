#!/bin/sh
# Makes the secrets compose.yaml and compose.dev.yaml read (docs/deployment.md, Secrets), once:
# connector.env for the connectors (the key-encryption key all instances share, the bootstrap
# API key, the callback signing secret) and receiver.env for the callback receiver (the callback
# secret alone). New random values, files of mode 0600 in the directory given (default: the
# repository root), never overwritten; both are in .gitignore and .dockerignore.
set -eu
dir="${1:-$(dirname "$0")/..}"
umask 077
for file in connector.env receiver.env; do
  if [ -e "$dir/$file" ]; then
    echo "compose-secrets: $dir/$file exists; remove it first to make new secrets (the key-encryption key opens the data sealed so far)" >&2
    exit 1
  fi
done
random() { node -p "require('node:crypto').randomBytes($1).toString('$2')"; }
callback_secret="whsec_$(random 32 base64)"
cat > "$dir/connector.env" <<ENV
DATA_KEY_ENCRYPTION_KEY=$(random 32 base64url)
BOOTSTRAP_API_KEY=$(random 32 base64url)
CALLBACK_SECRET=$callback_secret
ENV
printf 'CALLBACK_SECRET=%s\n' "$callback_secret" > "$dir/receiver.env"
echo "compose-secrets: wrote $dir/connector.env and $dir/receiver.env (mode 0600); back up DATA_KEY_ENCRYPTION_KEY apart from the data"
