#!/usr/bin/env bash
# Runs the egress suite (tests/netns) inside the private network and mount
# namespaces that tests/e2e/egress-netns.test.ts made with
# `unshare --net --mount --fork`: only `lo` exists, and the "forbidden"
# addresses the suite traps are put on it, so no packet can leave this machine.
set -euo pipefail
cd "$(dirname "$0")/../.."

ip link set lo up
for a in 169.254.169.254 10.0.0.5 100.64.0.5 100.64.7.7 192.168.1.5 93.184.216.34; do ip addr add "$a/32" dev lo; done
for a in fd00::5 fd00:ec2::254; do ip -6 addr add "$a/128" dev lo nodad; done

# Names resolve through the suite's own DNS server on 127.0.0.1 (this mount namespace only).
resolv=$(mktemp)
echo 'nameserver 127.0.0.1' > "$resolv"
mount --bind "$resolv" /etc/resolv.conf

ASSAY_NETNS=1 exec node_modules/.bin/jest --ci --selectProjects netns "$@"
