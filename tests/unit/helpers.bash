# shellcheck shell=bash
# Common set-up for the unit tests: load the harness's libraries in a scratch
# environment (own cache, results and patch dirs) so nothing real is touched.
VRB_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
export VRB_ROOT

load_libs() {
	export VRB_CACHE=$BATS_TEST_TMPDIR/cache
	export VRB_RESULTS=$BATS_TEST_TMPDIR/results
	export VRB_PATCHES=$BATS_TEST_TMPDIR/patches
	mkdir -p "$VRB_PATCHES"
	# shellcheck source=lib/functions.sh
	. "$VRB_ROOT/lib/functions.sh"
	# shellcheck source=lib/kernel.sh
	. "$VRB_ROOT/lib/kernel.sh"
	# shellcheck source=lib/guest.sh
	. "$VRB_ROOT/lib/guest.sh"
}
