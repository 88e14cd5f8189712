#!/usr/bin/env bash
# The alert rules' own checks: promtool's syntax check of deploy/prometheus/alerts.yml and its
# unit tests (deploy/prometheus/alerts.test.yml), with promtool installed when missing
# (tools/ci/install-promtool.sh). That every metric the rules name is served by a real receiver
# is checked by `npm test` (test/integration/operations/observability-metrics.test.ts).
#
# Exit 0: both passed. Exit 3: promtool could not be had (skipped, not passed). Otherwise
# promtool's own exit status.
set -euo pipefail
cd "$(dirname "$0")/../.."

set +e
promtool_path="$(tools/ci/install-promtool.sh)"
status=$?
set -e
if [ "$status" -ne 0 ]; then
  exit "$status"
fi

"$promtool_path" check rules deploy/prometheus/alerts.yml
"$promtool_path" test rules deploy/prometheus/alerts.test.yml
