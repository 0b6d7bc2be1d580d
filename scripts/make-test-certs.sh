#!/usr/bin/env bash
# Test certificates for the TLS tests, made with the openssl CLI into DIR (never committed):
#   ca.pem ca.key                  a CA ("sockctl test CA")
#   server.pem server.key          signed by the CA, for localhost, 127.0.0.1 and ::1
#   expired.pem expired.key        signed by the CA, for the same names, valid 2020-01-01 to 2020-01-02
#   wronghost.pem wronghost.key    signed by the CA, for wrong.example only
#   wildcard.pem wildcard.key      signed by the CA, for *.sockctl.test only
#   selfsigned.pem selfsigned.key  self-signed, for localhost and 127.0.0.1
#   client.pem client.key          signed by the CA, for client authentication (CN=sockctl client)
# Usage: scripts/make-test-certs.sh DIR
set -euo pipefail
DIR=${1:?usage: scripts/make-test-certs.sh DIR}
mkdir -p "$DIR"
cd "$DIR"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

key ca.key
openssl req -x509 -new -key ca.key -out ca.pem -days 30 -subj "/CN=sockctl test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null

# sign NAME SUBJECT SAN [EKU]: a leaf signed by the CA.
sign() {
    local name=$1 subject=$2 san=$3 eku=${4:-serverAuth}
    key "$name.key"
    openssl req -new -key "$name.key" -out "$name.csr" -subj "$subject" 2>/dev/null
    printf 'subjectAltName=%s\nextendedKeyUsage=%s\nbasicConstraints=CA:FALSE\n' "$san" "$eku" > "$name.ext"
    openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 \
        -extfile "$name.ext" -out "$name.pem" 2>/dev/null
    rm -f "$name.csr" "$name.ext"
}
sign server "/CN=localhost" "DNS:localhost,IP:127.0.0.1,IP:::1"
sign wronghost "/CN=wrong.example" "DNS:wrong.example"
sign wildcard "/CN=*.sockctl.test" "DNS:*.sockctl.test"
sign client "/CN=sockctl client" "DNS:client.example" clientAuth

# A certificate whose validity ended long ago needs explicit dates: `openssl ca` takes them.
mkdir -p ca-db
: > ca-db/index.txt
echo 1000 > ca-db/serial
cat > ca-db/openssl.cnf <<CNF
[ ca ]
default_ca = test
[ test ]
dir = ca-db
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
certificate = ca.pem
private_key = ca.key
default_md = sha256
policy = anything
copy_extensions = copy
unique_subject = no
[ anything ]
commonName = supplied
CNF
key expired.key
openssl req -new -key expired.key -out expired.csr -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" 2>/dev/null
openssl ca -batch -config ca-db/openssl.cnf -in expired.csr -out expired.pem -notext \
    -startdate 20200101000000Z -enddate 20200102000000Z >/dev/null 2>&1
rm -f expired.csr

key selfsigned.key
openssl req -x509 -new -key selfsigned.key -out selfsigned.pem -days 30 -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
