#!/usr/bin/env bash
# Makes a throwaway certificate authority for local TLS / mTLS, with openssl:
#   scripts/make-test-ca.sh DIR [CLIENT_CN ...]
# DIR gets ca.pem/ca.key, server.pem/server.key (for localhost, 127.0.0.1, ::1), and for each
# CLIENT_CN (e.g. agent:worker-1, operator:alice) a client certificate NAME.pem/NAME.key where
# NAME is the CN with ':' replaced by '_'. The CN names the principal: agent:ID or operator:NAME.
# For local testing only: keys are unencrypted and the CA lives 30 days.
set -euo pipefail
dir=${1:?usage: make-test-ca.sh DIR [CLIENT_CN ...]}
shift
mkdir -p "$dir"
cd "$dir"
days=30
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days "$days" \
  -subj "/CN=Outrider test CA" -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null

sign() { # name cn extfile
  openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$1.pem" -days "$days" \
    -extfile "$3" 2>/dev/null
  rm -f "$1.csr"
}

printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n' > server.ext
sign server localhost server.ext
printf 'extendedKeyUsage=clientAuth\n' > client.ext
for cn in "$@"; do
  sign "${cn//:/_}" "$cn" client.ext
done
rm -f server.ext client.ext ca.srl
chmod 600 ./*.key
echo "make-test-ca.sh: CA and certificates in $dir" >&2
