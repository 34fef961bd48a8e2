#!/bin/sh
# Replays repro.ops in a guest (from the repository root).
exec scripts/fuzz.sh --kernel patched --replay "$(dirname "$0")/repro.ops"
