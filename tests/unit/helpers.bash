# shellcheck shell=bash
# Common set-up for the unit tests: load the harness's libraries in a scratch
# environment (own cache, results and patch dirs) so nothing real is touched.
VRB_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
export VRB_ROOT

load_libs() {
	# in setup_file there is no test dir yet: the file's
	local d=${BATS_TEST_TMPDIR:-$BATS_FILE_TMPDIR}
	export VRB_CACHE=$d/cache
	export VRB_RESULTS=$d/results
	export VRB_PATCHES=$d/patches
	mkdir -p "$VRB_PATCHES"
	# shellcheck source=lib/functions.sh
	. "$VRB_ROOT/lib/functions.sh"
	# shellcheck source=lib/kernel.sh
	. "$VRB_ROOT/lib/kernel.sh"
	# shellcheck source=lib/guest.sh
	. "$VRB_ROOT/lib/guest.sh"
}
