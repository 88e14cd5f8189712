#!/usr/bin/env bash
# Makes `promtool` (Prometheus' rule checker) available, the way `npm run test:lb` gets nginx:
# present already, fine; missing, installed from Debian's `prometheus` package (root only).
# Idempotent. Prints promtool's path on stdout.
#
# Exit 0: promtool is on PATH (printed). Exit 3: it could not be had (not root, no apt-get,
# the package could not be installed): callers report the rule checks as skipped, not passed.
#
# Installing the package must not start a Prometheus server on this machine: while apt-get
# runs, a policy-rc.d that refuses every service start is put in place (only when the machine
# has none of its own, and removed afterwards).
set -uo pipefail

unavailable() {
  echo "promtool unavailable: $*" >&2
  exit 3
}

if command -v promtool >/dev/null 2>&1; then
  command -v promtool
  exit 0
fi
if [ "$EUID" -ne 0 ]; then
  unavailable "not installed and this is not root: apt-get install prometheus (it holds /usr/bin/promtool)"
fi
if ! command -v apt-get >/dev/null 2>&1; then
  unavailable "not installed and there is no apt-get: get promtool from https://prometheus.io/download/"
fi

policy=/usr/sbin/policy-rc.d
own_policy=false
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# tools/ci/install-promtool.sh: no service starts while it installs prometheus\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  own_policy=true
fi
cleanup() {
  if [ "$own_policy" = true ]; then rm -f "$policy"; fi
}
trap cleanup EXIT

echo "promtool not found: installing Debian's prometheus package (apt-get)..." >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -qq >/dev/null 2>&1; then
  unavailable "apt-get update failed"
fi
if ! apt-get install -y -qq --no-install-recommends prometheus >/dev/null 2>&1; then
  unavailable "apt-get could not install prometheus"
fi
# Only promtool was wanted: on a machine with systemd, the package also enabled a Prometheus
# server for the next boot.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  systemctl disable --now prometheus >/dev/null 2>&1 || true
fi
if ! command -v promtool >/dev/null 2>&1; then
  unavailable "the prometheus package installed no promtool"
fi
command -v promtool
