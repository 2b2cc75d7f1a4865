#!/usr/bin/env bash
# Regenerates the pictures of docs/output.md from the examples (make screenshots):
#   docs/plot_buck.png          run --plot of examples/buck.cir without .print (panels by kind,
#                               the PWM node in a thin panel, zoom column on the last 5 periods)
#   docs/plot_rlc_zener.png     an event-driven run: the event strip
#   docs/view_buck.png          the waveform viewer, whole run, cursors A and B placed
#   docs/view_buck_zoom.png     the same file zoomed on two periods (#range=FROM,TO)
# Needs the built binary (BUILD, default build), gnuplot and, for the viewer, chromium.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/${BUILD:-build}/nsspice"
docs="$root/docs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The buck of examples/buck.cir without its .print line: the default plot shows every signal.
grep -v '^\.print' "$root/examples/buck.cir" > "$work/buck.cir"
"$bin" run "$work/buck.cir" -o "$work/buck.csv" -q --no-progress --plot "$docs/plot_buck.png" \
  --view "$work/buck.html" --meas 'avg v(out) from=1.5m to=2m' --meas 'pp i(l1) from=1.9m to=2m'
"$bin" run "$root/examples/rlc_zener.cir" -o "$work/rlc.csv" -q --no-progress --method event \
  --plot "$docs/plot_rlc_zener.png"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z "$browser" ]]; then
  echo "docs-screenshots: chromium not found; the viewer pictures are not regenerated" >&2
  exit 0
fi
shot() {  # shot OUT.png HASH
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=10000 \
    --window-size=1200,1100 --screenshot="$1" "file://$work/buck.html$2" 2>/dev/null
}
shot "$docs/view_buck.png" "#range=0,0.002&cursors=0.0019,0.00195"
shot "$docs/view_buck_zoom.png" "#range=0.00197,0.00199&cursors=0.001975,0.00198"
echo "docs-screenshots: wrote docs/plot_buck.png docs/plot_rlc_zener.png docs/view_buck.png docs/view_buck_zoom.png"
