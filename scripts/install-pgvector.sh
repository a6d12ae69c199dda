#!/usr/bin/env bash
# Builds pgvector 0.8 into the local PostgreSQL 15 from Debian's source package.
# Debian bookworm packages no pgvector for PostgreSQL 15, so we take trixie's
# source package (deb-src only: nothing else from trixie is installed) and build it.
set -euo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
if [ -f "$("$PG_CONFIG" --sharedir)/extension/vector.control" ]; then
  echo "pgvector already installed for $("$PG_CONFIG" --version)"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

mirror=$(grep -hoE 'https?://[^ ]*debian(/)?$' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1 || true)
mirror=${mirror:-http://deb.debian.org/debian}
echo "deb-src $mirror trixie main" | $SUDO tee /etc/apt/sources.list.d/junction-pgvector-src.list >/dev/null

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq postgresql-server-dev-15 dpkg-dev make gcc >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get source --download-only pgvector >/dev/null
dpkg-source -x pgvector_*.dsc src >/dev/null
cd src
make -s PG_CONFIG="$PG_CONFIG" >/dev/null
$SUDO make -s install PG_CONFIG="$PG_CONFIG" >/dev/null
echo "pgvector built and installed for $("$PG_CONFIG" --version)"
